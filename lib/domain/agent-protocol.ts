import { z } from "zod";
import { labelsSchema } from "./labels";

// Request bodies of the agent protocol (../shared/PROTOCOL.md), shared by the server's
// routes and anything that wants to check a body before sending it.

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export const clusterNameSchema = z
  .string()
  .regex(
    DNS_LABEL,
    "must be a DNS-1123 label: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit",
  );
export const semverSchema = z.string().max(64).regex(SEMVER, "must be a semantic version like 1.4.0");
export const kubernetesVersionSchema = z
  .string()
  .max(64)
  .transform((v) => v.replace(/^v/, ""))
  .pipe(semverSchema);
export const fingerprintSchema = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be sha256: followed by 64 hex digits"));
export const httpsUrlSchema = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === "https:" && !!u.hostname && !u.username && !u.password;
    } catch {
      return false;
    }
  }, "must be an https URL");
export const csrSchema = z.string().min(1).max(16_384);

export const registerRequestSchema = z.object({
  name: clusterNameSchema,
  apiServerUrl: httpsUrlSchema,
  caFingerprint: fingerprintSchema,
  agentVersion: semverSchema,
  kubernetesVersion: kubernetesVersionSchema,
  labels: labelsSchema.default({}),
  csr: csrSchema,
});
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

const count = z.number().int().min(0).max(1_000_000);

export const nodePoolReportSchema = z.object({
  name: z.string().min(1).max(63),
  nodeCount: count,
  readyNodes: count,
  kubeletVersion: kubernetesVersionSchema.optional(),
  instanceType: z.string().max(100).optional(),
  cpuCores: z.number().min(0).max(1_000_000).optional(),
  memoryGiB: z.number().min(0).max(100_000_000).optional(),
});
export type NodePoolReport = z.infer<typeof nodePoolReportSchema>;

export const API_SERVER_HEALTH = ["ok", "degraded", "down"] as const;

export const heartbeatRequestSchema = z.object({
  agentVersion: semverSchema,
  kubernetesVersion: kubernetesVersionSchema,
  nodePools: z
    .array(nodePoolReportSchema)
    .max(200)
    .refine((p) => new Set(p.map((x) => x.name)).size === p.length, "node pool names must be unique")
    .default([]),
  workloads: z.object({ pods: count, namespaces: count }).optional(),
  health: z.object({ apiServer: z.enum(API_SERVER_HEALTH), logs: z.boolean(), metrics: z.boolean() }),
  policy: z.object({ appliedRevision: z.string().max(64).nullable() }).optional(),
  /** Directive types this agent can carry out; absent: an older agent (it gets every type). */
  capabilities: z.array(z.string().min(1).max(64)).max(50).optional(),
  acks: z.array(z.string().min(1).max(64)).max(100).default([]),
});
export type HeartbeatRequest = z.infer<typeof heartbeatRequestSchema>;

export const rotateRequestSchema = z.object({ csr: csrSchema });
