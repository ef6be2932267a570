import { z } from "zod";
import { clusterNameSchema } from "@/lib/domain/agent-protocol";
import { DNS_LABEL } from "@/lib/domain/labels";
import { CLUSTER_MANAGER, CLUSTER_PROFILE_API_VERSION, MAX_KUBECONFIG_BYTES } from "@/lib/domain/cluster-profiles";
import { isoTime, labelsMap } from "./common";
import { route } from "./route";

// The fleet as SIG-Multicluster ClusterProfiles (lib/domain/cluster-profiles.ts) and the exporter
// that applies them to a hub. The profile schema restates the CRD's OpenAPI constraints
// (kubernetes-sigs/cluster-inventory-api, config/crd/bases/multicluster.x-k8s.io_clusterprofiles.yaml),
// so a contract check of the list also checks what the hub would accept.

const conditionSchema = z.object({
  type: z
    .string()
    .max(316)
    .regex(/^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/),
  message: z.string().max(32_768),
  lastTransitionTime: z.iso.datetime(),
  observedGeneration: z.number().int().min(0).optional(),
});

export const clusterProfileSchema = z.object({
  apiVersion: z.literal(CLUSTER_PROFILE_API_VERSION),
  kind: z.literal("ClusterProfile"),
  metadata: z.object({
    name: z.string().regex(DNS_LABEL),
    namespace: z.string().optional(),
    labels: labelsMap,
    annotations: z.record(z.string(), z.string()),
  }),
  spec: z.object({ displayName: z.string(), clusterManager: z.object({ name: z.literal(CLUSTER_MANAGER) }) }),
  status: z.object({
    conditions: z.array(conditionSchema),
    version: z.object({ kubernetes: z.string().optional() }),
    properties: z.array(z.object({ name: z.string().min(1).max(253), value: z.string().min(1).max(1024) })),
  }),
});

export const clusterProfileListSchema = z.object({
  apiVersion: z.literal(CLUSTER_PROFILE_API_VERSION),
  kind: z.literal("ClusterProfileList"),
  /** `continue`: hand it back as `cursor` (or `continue`) for the next page; absent on the last */
  metadata: z.object({ continue: z.string().optional() }),
  items: z.array(clusterProfileSchema),
});
export type ClusterProfileList = z.infer<typeof clusterProfileListSchema>;

export const listClusterProfilesQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(500),
    /** the previous page's metadata.continue: the name of its last cluster */
    cursor: clusterNameSchema.optional(),
    /** the Kubernetes spelling of `cursor` */
    continue: clusterNameSchema.optional(),
  })
  .transform(({ continue: token, cursor, limit }) => ({ limit, cursor: cursor ?? token }));

// ---------------------------------------------------------------------------------------------
// The exporter's settings

export const exporterStateSchema = z.object({
  enabled: z.boolean(),
  namespace: z.string(),
  /** whether a hub kubeconfig is stored (it is never returned) and the server it names */
  kubeconfig: z.object({ set: z.boolean(), server: z.string().nullable() }),
  /** false: the server has no key-encryption key, so no kubeconfig can be stored */
  kekConfigured: z.boolean(),
  lastExportAt: isoTime.nullable(),
  lastError: z.object({ message: z.string(), at: isoTime }).nullable(),
  /** profiles the exporter has applied to the hub */
  exported: z.number(),
});
export type ExporterState = z.infer<typeof exporterStateSchema>;

export const exporterPatchSchema = z
  .object({
    enabled: z.boolean().optional(),
    namespace: z.string().regex(DNS_LABEL, "must be a namespace name (a DNS-1123 label)").optional(),
    /** the hub kubeconfig's YAML; null removes it (and turns the exporter off) */
    kubeconfig: z.string().min(1).max(MAX_KUBECONFIG_BYTES).nullable().optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "Name at least one setting to change." });
export type ExporterPatch = z.infer<typeof exporterPatchSchema>;

export const clusterProfileRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/clusterprofiles",
    summary: "The fleet as SIG-Multicluster ClusterProfiles (multicluster.x-k8s.io/v1alpha1), by name, a page at a time",
    role: "viewer",
    scope: "fleet",
    query: listClusterProfilesQuerySchema,
    response: clusterProfileListSchema,
  }),
  exporter: route({
    method: "GET",
    path: "/api/v1/settings/cluster-profile-export",
    summary: "The ClusterProfile exporter: on/off, hub, namespace, last export and error",
    role: "admin",
    scope: "fleet",
    response: exporterStateSchema,
  }),
  updateExporter: route({
    method: "PATCH",
    path: "/api/v1/settings/cluster-profile-export",
    summary: "Change the ClusterProfile exporter (the hub kubeconfig is stored sealed and never returned)",
    role: "admin",
    scope: "fleet",
    body: exporterPatchSchema,
    response: exporterStateSchema,
  }),
};
