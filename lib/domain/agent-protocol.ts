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

/** An acknowledgement: a directive id (done), or a directive the agent could not carry out. */
export const ackSchema = z.union([
  z.string().min(1).max(64),
  z.object({ id: z.string().min(1).max(64), ok: z.literal(false), reason: z.string().trim().min(1).max(500) }),
]);
export type Ack = z.infer<typeof ackSchema>;

export const heartbeatRequestSchema = z.object({
  agentVersion: semverSchema,
  kubernetesVersion: kubernetesVersionSchema,
  nodePools: z
    .array(nodePoolReportSchema)
    .max(200)
    .refine((p) => new Set(p.map((x) => x.name)).size === p.length, "node pool names must be unique")
    .default([]),
  /** userPods: pods outside system namespaces, DaemonSets and the agent; drains wait for it. */
  workloads: z.object({ pods: count, namespaces: count, userPods: count.optional() }).optional(),
  /** Directive types this agent can carry out; when present only those are sent. */
  capabilities: z.array(z.string().min(1).max(64)).max(50).optional(),
  health: z.object({ apiServer: z.enum(API_SERVER_HEALTH), logs: z.boolean(), metrics: z.boolean() }),
  policy: z.object({ appliedRevision: z.string().max(64).nullable() }).optional(),
  acks: z.array(ackSchema).max(100).default([]),
});
export type HeartbeatRequest = z.infer<typeof heartbeatRequestSchema>;

export const rotateRequestSchema = z.object({ csr: csrSchema });
