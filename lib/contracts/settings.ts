import { z } from "zod";
import { compatibilityMatrixSchema } from "@/lib/domain/compatibility";
import { MAX_OFFSET } from "@/lib/domain/paging";
import { settingsPatchSchema, settingsSchema } from "@/lib/domain/settings";
import { isoTime } from "./common";
import { route } from "./route";

// Fleet settings, the fleet CA, and the agent/Kubernetes compatibility matrix: the admin's knobs.

export const caSummarySchema = z.object({
  fingerprint: z.string(),
  subject: z.string(),
  /** The CA's key, as people name it: "RSA 3072", "ECDSA P-256". */
  key: z.string(),
  notAfter: isoTime,
  state: z.enum(["active", "retiring", "incoming"]),
});
export type CaSummary = z.infer<typeof caSummarySchema>;

/** The fleet's CAs and, during a rollover, its progress. */
export const caStatusSchema = z.object({
  cas: z.array(caSummarySchema),
  rollover: z
    .object({
      startedAt: isoTime,
      startedBy: z.string(),
      /** Clusters with a current (unrevoked, unexpired) certificate. */
      clusters: z.number(),
      /** Of those, clusters still holding a current certificate of the old CA. */
      onOldCa: z.number(),
      percent: z.number(),
      byIssuer: z.array(z.object({ fingerprint: z.string(), clusters: z.number() })),
      canRetire: z.boolean(),
    })
    .nullable(),
  retired: z.object({ fingerprint: z.string(), retiredAt: isoTime }).nullable(),
});
export type CaStatus = z.infer<typeof caStatusSchema>;

export const matrixStateSchema = z.object({ matrix: compatibilityMatrixSchema, edited: z.boolean() });

export const VERSION_FLAGS = ["incompatible", "outdated", "unsupported-kubernetes"] as const;
const versionFlagSchema = z.enum(VERSION_FLAGS);

export const flaggedClusterSchema = z.object({
  id: z.string(),
  name: z.string(),
  agentVersion: z.string().nullable(),
  kubernetesVersion: z.string().nullable(),
  phase: z.string(),
  flags: z.array(versionFlagSchema),
});
export type FlaggedCluster = z.infer<typeof flaggedClusterSchema>;

export const flaggedQuerySchema = z.object({
  /** only clusters with this flag (absent: any flag) */
  flag: versionFlagSchema.optional(),
  offset: z.coerce.number().int().min(0).max(MAX_OFFSET).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export type FlaggedQuery = z.infer<typeof flaggedQuerySchema>;

export const flaggedPageSchema = z.object({
  items: z.array(flaggedClusterSchema),
  total: z.number(),
  /** offset of the next page; null on the last */
  nextOffset: z.number().nullable(),
});

export const versionsOverviewSchema = matrixStateSchema.extend({
  agentVersions: z.array(z.object({ version: z.string(), count: z.number() })),
  kubernetesVersions: z.array(z.object({ version: z.string(), count: z.number() })),
  flaggedCounts: z.record(versionFlagSchema, z.number()),
  /** clusters with at least one flag; the list itself pages at GET /api/v1/versions/flagged */
  flaggedTotal: z.number(),
});
export type VersionsOverview = z.infer<typeof versionsOverviewSchema>;

export const settingsRoutes = {
  get: route({
    method: "GET",
    path: "/api/v1/settings",
    summary: "Fleet settings",
    role: "admin",
    scope: "fleet",
    response: settingsSchema,
  }),
  update: route({
    method: "PATCH",
    path: "/api/v1/settings",
    summary: "Change fleet settings",
    role: "admin",
    scope: "fleet",
    body: settingsPatchSchema,
    response: settingsSchema,
  }),
  ca: route({
    method: "GET",
    path: "/api/v1/ca",
    summary: "The fleet CAs (fingerprint, expiry, state) and a rollover's progress",
    role: "viewer",
    scope: "fleet",
    response: caStatusSchema,
  }),
  caRollover: route({
    method: "POST",
    path: "/api/v1/ca/rollover",
    summary: "Start a fleet CA rollover (a new CA signs; agents rotate onto it)",
    role: "admin",
    scope: "fleet",
    response: caStatusSchema,
  }),
  caRetire: route({
    method: "POST",
    path: "/api/v1/ca/retire",
    summary: "Retire the old fleet CA once no current certificate chains to it (409 before)",
    role: "admin",
    scope: "fleet",
    response: caStatusSchema,
  }),
  compatibility: route({
    method: "GET",
    path: "/api/v1/compatibility",
    summary: "The compatibility matrix in force",
    role: "viewer",
    scope: "member",
    response: matrixStateSchema,
  }),
  setCompatibility: route({
    method: "PUT",
    path: "/api/v1/compatibility",
    summary: "Replace the compatibility matrix",
    role: "admin",
    scope: "fleet",
    body: compatibilityMatrixSchema,
    response: matrixStateSchema,
  }),
  resetCompatibility: route({
    method: "DELETE",
    path: "/api/v1/compatibility",
    summary: "Return to the shipped matrix",
    role: "admin",
    scope: "fleet",
    response: matrixStateSchema,
  }),
  versions: route({
    method: "GET",
    path: "/api/v1/versions",
    summary: "Version distribution and flagged clusters",
    role: "viewer",
    scope: "clusters",
    response: versionsOverviewSchema,
  }),
  flagged: route({
    method: "GET",
    path: "/api/v1/versions/flagged",
    summary: "Clusters whose versions are flagged, by name, a page at a time",
    role: "viewer",
    scope: "clusters",
    query: flaggedQuerySchema,
    response: flaggedPageSchema,
  }),
};
