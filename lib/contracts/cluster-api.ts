import { z } from "zod";
import { CAPI_STEPS, DEFAULT_OPT_IN_LABEL, isSourceName } from "@/lib/domain/cluster-api";
import { MAX_KUBECONFIG_BYTES } from "@/lib/domain/cluster-profiles";
import { DNS_LABEL, labelKeySchema, labelsSchema } from "@/lib/domain/labels";
import { isoTime, itemsOf, labelsMap } from "./common";
import { route } from "./route";

// Cluster API sources (management clusters the fleet imports clusters from) and the import state
// of each CAPI Cluster seen there (lib/domain/cluster-api.ts, docs/integrations/cluster-api.md).

const labelMappingSchema = z.object({ from: labelKeySchema, to: labelKeySchema }).strict();

/** The agent manifest's options for a source's clusters (the console's manifest dialog offers the same). */
export const capiAgentOptionsSchema = z
  .object({
    /** the agent image, e.g. registry.example.com/fleet/agent:1.4.0; default: the fleet's */
    agentImage: z.string().min(1).max(512).optional(),
    httpsProxy: z.string().url().max(2048).optional(),
    noProxy: z.string().max(2048).optional(),
  })
  .strict();

const sourceFields = {
  namespaces: z.array(z.string().regex(DNS_LABEL, "must be a namespace name (a DNS-1123 label)")).max(100),
  optInLabel: labelKeySchema,
  labelMappings: z.array(labelMappingSchema).max(32),
  fixedLabels: labelsSchema,
  requireApproval: z.boolean(),
  agentOptions: capiAgentOptionsSchema,
  allowPrivateTargets: z.boolean(),
  enabled: z.boolean(),
};

export const createCapiSourceSchema = z
  .object({
    name: z
      .string()
      .refine(isSourceName, "must be a DNS-1123 label of at most 20 characters (it prefixes its clusters' fleet names)"),
    /** the management cluster's kubeconfig (inline credentials only; stored sealed, never returned) */
    kubeconfig: z.string().min(1).max(MAX_KUBECONFIG_BYTES),
    namespaces: sourceFields.namespaces.default([]),
    optInLabel: sourceFields.optInLabel.default(DEFAULT_OPT_IN_LABEL),
    labelMappings: sourceFields.labelMappings.default([]),
    fixedLabels: sourceFields.fixedLabels.default({}),
    requireApproval: sourceFields.requireApproval.default(false),
    agentOptions: sourceFields.agentOptions.default({}),
    allowPrivateTargets: sourceFields.allowPrivateTargets.default(false),
    enabled: sourceFields.enabled.default(true),
  })
  .strict();
export type CreateCapiSource = z.output<typeof createCapiSourceSchema>;

export const updateCapiSourceSchema = z
  .object({
    kubeconfig: z.string().min(1).max(MAX_KUBECONFIG_BYTES).optional(),
    namespaces: sourceFields.namespaces.optional(),
    optInLabel: sourceFields.optInLabel.optional(),
    labelMappings: sourceFields.labelMappings.optional(),
    fixedLabels: sourceFields.fixedLabels.optional(),
    requireApproval: sourceFields.requireApproval.optional(),
    agentOptions: sourceFields.agentOptions.optional(),
    allowPrivateTargets: sourceFields.allowPrivateTargets.optional(),
    enabled: sourceFields.enabled.optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "Name at least one setting to change." });
export type UpdateCapiSource = z.output<typeof updateCapiSourceSchema>;

const stepCounts = z.record(z.enum(CAPI_STEPS), z.number());

export const capiSourceSchema = z.object({
  id: z.string(),
  name: z.string(),
  server: z.string(),
  namespaces: z.array(z.string()),
  optInLabel: z.string(),
  labelMappings: z.array(z.object({ from: z.string(), to: z.string() })),
  fixedLabels: labelsMap,
  requireApproval: z.boolean(),
  agentOptions: z.object({
    agentImage: z.string().optional(),
    httpsProxy: z.string().optional(),
    noProxy: z.string().optional(),
  }),
  allowPrivateTargets: z.boolean(),
  enabled: z.boolean(),
  /** the CAPI version being read (v1beta2 | v1beta1); null before discovery */
  servedVersion: z.string().nullable(),
  /** whether an instance holds the watch now */
  watching: z.boolean(),
  lastSyncAt: isoTime.nullable(),
  lastError: z.object({ message: z.string(), at: isoTime }).nullable(),
  /** CAPI Clusters seen, by step */
  steps: stepCounts,
  createdBy: z.string(),
  createdAt: isoTime,
});
export type CapiSourceView = z.infer<typeof capiSourceSchema>;

export const capiSourceListSchema = z.object({
  items: z.array(capiSourceSchema),
  /** false: the server has no key-encryption key, so no kubeconfig can be stored */
  kekConfigured: z.boolean(),
});

export const capiClusterSchema = z.object({
  id: z.string(),
  source: z.object({ id: z.string(), name: z.string() }),
  namespace: z.string(),
  name: z.string(),
  fleetName: z.string(),
  /** the fleet's record; null before pre-creation and after removal */
  clusterId: z.string().nullable(),
  step: z.enum(CAPI_STEPS),
  /** what the step waits for, in words */
  waitingFor: z.string(),
  /** the step's last failure ("kubeconfig Secret not found", "apply refused: 403 on namespaces") */
  error: z.object({ message: z.string(), at: isoTime }).nullable(),
  attempts: z.number(),
  nextAttemptAt: isoTime.nullable(),
  capiPhase: z.string().nullable(),
  conditions: z.array(
    z.object({
      type: z.string(),
      status: z.enum(["True", "False", "Unknown"]),
      reason: z.string().optional(),
      message: z.string().optional(),
    }),
  ),
  labels: labelsMap,
  infrastructureProvider: z.string().nullable(),
  kubernetesVersion: z.string().nullable(),
  topologyClass: z.string().nullable(),
  capiCreatedAt: isoTime.nullable(),
  deletingSince: isoTime.nullable(),
  appliedAt: isoTime.nullable(),
  excluded: z.object({ at: isoTime, by: z.string() }).nullable(),
  expectedClusterUid: z.string().nullable(),
});
export type CapiClusterView = z.infer<typeof capiClusterSchema>;

export const listCapiClustersQuerySchema = z.object({
  source: z.string().optional(),
  step: z.enum(CAPI_STEPS).optional(),
});

export const clusterApiRoutes = {
  listSources: route({
    method: "GET",
    path: "/api/v1/cluster-api/sources",
    summary: "Cluster API sources: the management clusters watched, their state and their clusters by step",
    role: "viewer",
    scope: "fleet",
    response: capiSourceListSchema,
  }),
  createSource: route({
    method: "POST",
    path: "/api/v1/cluster-api/sources",
    summary: "Add a Cluster API management cluster (the kubeconfig is stored sealed and never returned)",
    role: "admin",
    scope: "fleet",
    body: createCapiSourceSchema,
    response: capiSourceSchema,
    status: 201,
  }),
  updateSource: route({
    method: "PATCH",
    path: "/api/v1/cluster-api/sources/{id}",
    summary: "Change a Cluster API source",
    role: "admin",
    scope: "fleet",
    body: updateCapiSourceSchema,
    response: capiSourceSchema,
  }),
  deleteSource: route({
    method: "DELETE",
    path: "/api/v1/cluster-api/sources/{id}",
    summary: "Stop watching a management cluster (its imported clusters stay in the fleet; nothing changes there)",
    role: "admin",
    scope: "fleet",
    status: 204,
  }),
  listClusters: route({
    method: "GET",
    path: "/api/v1/cluster-api/clusters",
    summary: "The CAPI Clusters seen on the sources, each with its import step and last failure",
    role: "viewer",
    scope: "fleet",
    query: listCapiClustersQuerySchema,
    response: itemsOf(capiClusterSchema),
  }),
  retryCluster: route({
    method: "POST",
    path: "/api/v1/cluster-api/clusters/{id}/retry",
    summary: "Retry a CAPI Cluster's failed step now instead of after its back-off",
    role: "operator",
    scope: "fleet",
    response: capiClusterSchema,
  }),
  clearMark: route({
    method: "POST",
    path: "/api/v1/cluster-api/clusters/{id}/clear-mark",
    summary: "Clear the do-not-import mark of a CAPI Cluster removed from the registry, so it is imported again",
    role: "admin",
    scope: "fleet",
    response: capiClusterSchema,
  }),
  forCluster: route({
    method: "GET",
    path: "/api/v1/clusters/{id}/cluster-api",
    summary: "The Cluster API origin of a fleet cluster (null when it was not imported)",
    role: "viewer",
    scope: "cluster",
    response: z.object({ item: capiClusterSchema.nullable() }),
  }),
};
