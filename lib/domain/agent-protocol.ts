import { z } from "zod";
import { DNS_LABEL, labelsSchema } from "./labels";
import { SEMVER } from "./semver";

// Request bodies of the agent protocol (docs/protocol.md), shared by the server's
// routes and anything that wants to check a body before sending it.

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
/** A Kubernetes object UID (the kube-system namespace's): compared case-insensitively, stored lowercase. */
export const CLUSTER_UID = /^[0-9a-z][0-9a-z-]{0,63}$/;
export const clusterUidSchema = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.string().regex(CLUSTER_UID, "must be a Kubernetes UID (the kube-system namespace's metadata.uid)"));

export const registerRequestSchema = z.object({
  name: clusterNameSchema,
  apiServerUrl: httpsUrlSchema,
  caFingerprint: fingerprintSchema,
  agentVersion: semverSchema,
  /** Absent when the agent could not read it (the API server's /version failed): shown as unknown. */
  kubernetesVersion: kubernetesVersionSchema.optional(),
  labels: labelsSchema.default({}),
  csr: csrSchema,
  /** The kube-system namespace's UID: the Kubernetes cluster's own identity (flagged when shared, never refused). */
  clusterUid: clusterUidSchema.optional(),
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

/**
 * Why a directive was not carried out, when the control plane acts on it (optional, beside the
 * reason). gitops_managed: an upgrade the agent leaves to the GitOps controller that owns its
 * Deployment; the cluster counts as upgraded once the new version heartbeats.
 */
export const ACK_CODES = ["gitops_managed"] as const;
export type AckCode = (typeof ACK_CODES)[number];

/** An acknowledgement: a directive id (done), or a directive the agent could not carry out. */
export const ackSchema = z.union([
  z.string().min(1).max(64),
  z
    .object({
      id: z.string().min(1).max(64),
      ok: z.literal(false),
      reason: z.string().trim().min(1).max(500),
      code: z.string().max(64).optional(),
    })
    // An unknown code (a newer agent) is dropped: the ack stays a failure with its reason.
    .transform(({ code, ...ack }): { id: string; ok: false; reason: string; code?: AckCode } =>
      (ACK_CODES as readonly string[]).includes(code ?? "") ? { ...ack, code: code as AckCode } : ack,
    ),
]);
export type Ack = z.infer<typeof ackSchema>;

/** An RFC 3339 time as the Kubernetes API writes metadata.creationTimestamp. */
const KUBE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;
const isKubeTime = (v: string) => KUBE_TIME.test(v) && !Number.isNaN(Date.parse(v));
const LEASE_TRANSITIONS_MAX = 2_147_483_647;

/**
 * The agent's coordination.k8s.io Lease as it last held it: holder identity, leaseTransitions and
 * the Lease's creationTimestamp (a Lease deleted and created again starts counting anew). The
 * control plane refuses a heartbeat whose Lease was taken over since (lib/domain/lease-holder.ts).
 */
export const heartbeatLeaseSchema = z.object({
  holder: z.string().min(1).max(253),
  transitions: z.number().int().min(0).max(LEASE_TRANSITIONS_MAX),
  createdAt: z.string().max(64).refine(isKubeTime, "must be an RFC 3339 time").optional(),
});
export type HeartbeatLease = z.infer<typeof heartbeatLeaseSchema>;

/** The most node pools one heartbeat carries; an agent with more sums the rest into one. */
export const MAX_NODE_POOLS = 200;
/** The parts of the facts an agent reads on its own: `factAges` gives each one's age in seconds. */
export const FACT_AGE_PARTS = ["kubernetesVersion", "nodePools", "namespaces", "pods", "apiServer", "logs", "metrics"] as const;
const ageSeconds = z.number().int().min(0).max(1_000_000_000);

// A fact part that is absent has not been read yet (the agent just started, or its cluster is
// slow): the server keeps what it stored last for it, never takes it for zero.
export const heartbeatRequestSchema = z.object({
  agentVersion: semverSchema,
  /** Absent when the agent could not read it (the API server's /version failed): shown as unknown. */
  kubernetesVersion: kubernetesVersionSchema.optional(),
  nodePools: z
    .array(nodePoolReportSchema)
    .max(MAX_NODE_POOLS)
    .refine((p) => new Set(p.map((x) => x.name)).size === p.length, "node pool names must be unique")
    .optional(),
  /** userPods: pods outside system namespaces, DaemonSets and the agent; drains wait for it. */
  workloads: z.object({ pods: count, namespaces: count, userPods: count.optional() }).optional(),
  /** Directive types this agent can carry out; when present only those are sent. */
  capabilities: z.array(z.string().min(1).max(64)).max(50).optional(),
  health: z
    .object({ apiServer: z.enum(API_SERVER_HEALTH), logs: z.boolean().optional(), metrics: z.boolean().optional() })
    .optional(),
  policy: z.object({ appliedRevision: z.string().max(64).nullable() }).optional(),
  acks: z.array(ackSchema).max(100).default([]),
  clusterUid: clusterUidSchema.optional(),
  /** Sent by agents that hold a Lease in their cluster (state in a Secret). */
  lease: heartbeatLeaseSchema.optional(),
  /** Seconds since each part sent was read (informational). */
  factAges: z.partialRecord(z.enum(FACT_AGE_PARTS), ageSeconds).optional(),
});
export type HeartbeatRequest = z.infer<typeof heartbeatRequestSchema>;

// The schema costs a tenth of a heartbeat's main-thread time, and nearly every heartbeat is the
// same plain shape. plainHeartbeat checks that shape by hand and builds what the schema would
// give (keys in the schema's order, defaults filled, `v` taken off Kubernetes versions). Anything
// else (an unknown key, an acknowledgement with a reason, any doubt at all) is null: the schema
// decides, so every refusal and its error are the schema's own.
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const onlyKeys = (o: Record<string, unknown>, allowed: ReadonlySet<string>) => Object.keys(o).every((k) => allowed.has(k));
const isCount = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0 && v <= 1_000_000;
const isNumberIn = (v: unknown, max: number) => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= max;
const isText = (v: unknown, min: number, max: number): v is string => typeof v === "string" && v.length >= min && v.length <= max;
const isSemver = (v: unknown): v is string => isText(v, 0, 64) && SEMVER.test(v);
const kubernetesVersion = (v: unknown): string | null => {
  if (!isText(v, 0, 64)) return null;
  const bare = v.replace(/^v/, "");
  return SEMVER.test(bare) ? bare : null;
};

const HEARTBEAT_KEYS = new Set(Object.keys(heartbeatRequestSchema.shape));
const POOL_KEYS = new Set(Object.keys(nodePoolReportSchema.shape));
const WORKLOAD_KEYS = new Set(["pods", "namespaces", "userPods"]);
const HEALTH_KEYS = new Set(["apiServer", "logs", "metrics"]);
const POLICY_KEYS = new Set(["appliedRevision"]);
const LEASE_KEYS = new Set(Object.keys(heartbeatLeaseSchema.shape));

function plainLease(v: unknown): HeartbeatLease | null {
  if (!isObject(v) || !onlyKeys(v, LEASE_KEYS) || !isText(v.holder, 1, 253)) return null;
  const t = v.transitions;
  if (typeof t !== "number" || !Number.isSafeInteger(t) || t < 0 || t > LEASE_TRANSITIONS_MAX) return null;
  if ("createdAt" in v && !(isText(v.createdAt, 0, 64) && isKubeTime(v.createdAt))) return null;
  return { holder: v.holder, transitions: t, ...("createdAt" in v ? { createdAt: v.createdAt as string } : {}) };
}
const AGE_KEYS: ReadonlySet<string> = new Set(FACT_AGE_PARTS);

function plainPool(v: unknown): NodePoolReport | null {
  if (!isObject(v) || !onlyKeys(v, POOL_KEYS)) return null;
  if (!isText(v.name, 1, 63) || !isCount(v.nodeCount) || !isCount(v.readyNodes)) return null;
  const pool: NodePoolReport = { name: v.name, nodeCount: v.nodeCount as number, readyNodes: v.readyNodes as number };
  if ("kubeletVersion" in v) {
    const kubelet = kubernetesVersion(v.kubeletVersion);
    if (kubelet === null) return null;
    pool.kubeletVersion = kubelet;
  }
  if ("instanceType" in v) {
    if (!isText(v.instanceType, 0, 100)) return null;
    pool.instanceType = v.instanceType;
  }
  if ("cpuCores" in v) {
    if (!isNumberIn(v.cpuCores, 1_000_000)) return null;
    pool.cpuCores = v.cpuCores as number;
  }
  if ("memoryGiB" in v) {
    if (!isNumberIn(v.memoryGiB, 100_000_000)) return null;
    pool.memoryGiB = v.memoryGiB as number;
  }
  return pool;
}

/** The plain heartbeat as heartbeatRequestSchema would parse it, or null to leave it to the schema. */
export function plainHeartbeat(v: unknown): HeartbeatRequest | null {
  if (!isObject(v) || !onlyKeys(v, HEARTBEAT_KEYS) || !isSemver(v.agentVersion)) return null;
  const kubernetes = "kubernetesVersion" in v ? kubernetesVersion(v.kubernetesVersion) : undefined;
  if (kubernetes === null) return null;
  let nodePools: NodePoolReport[] | undefined;
  if ("nodePools" in v) {
    if (!Array.isArray(v.nodePools) || v.nodePools.length > MAX_NODE_POOLS) return null;
    nodePools = [];
    const names = new Set<string>();
    for (const p of v.nodePools) {
      const pool = plainPool(p);
      if (!pool || names.has(pool.name)) return null;
      names.add(pool.name);
      nodePools.push(pool);
    }
  }
  const out = { agentVersion: v.agentVersion } as HeartbeatRequest;
  if (kubernetes !== undefined) out.kubernetesVersion = kubernetes;
  if (nodePools) out.nodePools = nodePools;
  if ("workloads" in v) {
    const w = v.workloads;
    if (!isObject(w) || !onlyKeys(w, WORKLOAD_KEYS) || !isCount(w.pods) || !isCount(w.namespaces)) return null;
    if ("userPods" in w && !isCount(w.userPods)) return null;
    out.workloads = {
      pods: w.pods as number,
      namespaces: w.namespaces as number,
      ...("userPods" in w ? { userPods: w.userPods as number } : {}),
    };
  }
  if ("capabilities" in v) {
    const c = v.capabilities;
    if (!Array.isArray(c) || c.length > 50 || !c.every((t) => isText(t, 1, 64))) return null;
    out.capabilities = [...(c as string[])];
  }
  if ("health" in v) {
    const h = v.health;
    if (!isObject(h) || !onlyKeys(h, HEALTH_KEYS) || !API_SERVER_HEALTH.includes(h.apiServer as never)) return null;
    if (("logs" in h && typeof h.logs !== "boolean") || ("metrics" in h && typeof h.metrics !== "boolean")) return null;
    out.health = {
      apiServer: h.apiServer as (typeof API_SERVER_HEALTH)[number],
      ...("logs" in h ? { logs: h.logs as boolean } : {}),
      ...("metrics" in h ? { metrics: h.metrics as boolean } : {}),
    };
  }
  if ("policy" in v) {
    const p = v.policy;
    if (!isObject(p) || !onlyKeys(p, POLICY_KEYS) || !("appliedRevision" in p)) return null;
    if (p.appliedRevision !== null && !isText(p.appliedRevision, 0, 64)) return null;
    out.policy = { appliedRevision: p.appliedRevision };
  }
  // Acknowledgements with a reason (objects) are rare: the schema trims and checks those.
  const acks = "acks" in v ? v.acks : [];
  if (!Array.isArray(acks) || acks.length > 100 || !acks.every((a) => isText(a, 1, 64))) return null;
  out.acks = [...(acks as string[])];
  if ("clusterUid" in v) {
    if (!isText(v.clusterUid, 1, 64)) return null;
    const uid = v.clusterUid.toLowerCase();
    if (!CLUSTER_UID.test(uid)) return null;
    out.clusterUid = uid;
  }
  if ("lease" in v) {
    const lease = plainLease(v.lease);
    if (!lease) return null;
    out.lease = lease;
  }
  if ("factAges" in v) {
    const a = v.factAges;
    if (!isObject(a) || !onlyKeys(a, AGE_KEYS)) return null;
    if (!Object.values(a).every((n) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0 && n <= 1_000_000_000))
      return null;
    out.factAges = { ...(a as Record<(typeof FACT_AGE_PARTS)[number], number>) };
  }
  return out;
}

export const rotateRequestSchema = z.object({ csr: csrSchema });

// ---- directives -------------------------------------------------------------------------------

/** Who carries a directive out: the agent itself (its standing with the control plane), or the cluster behind it. */
export type DirectiveExecutor = "agent" | "cluster";

type DirectiveSpec = {
  /** The directive's fields besides `id` and `type` (sent at the top level of the directive). */
  payload: z.ZodObject;
  by: DirectiveExecutor;
  /**
   * The capability that gates it: the agent reports the directive types it can carry out, and the
   * control plane sends only those (all of them to an agent that reports none). `nodeActions`:
   * offered only where the agent may act on nodes (the Kubernetes agent's --allow-node-actions).
   */
  offered: "always" | "nodeActions";
  /** One line for docs/protocol.md's table. */
  purpose: string;
};

/**
 * Every directive type of the protocol: its payload, who carries it out, when it is offered. The
 * server's createDirective, the agent's dispatch, both cluster backends' capability lists and the
 * table in docs/protocol.md all come from here, so a new type is added here first.
 */
export const DIRECTIVES = {
  disconnect: {
    payload: z.object({ reason: z.string().max(200).optional() }),
    by: "agent",
    offered: "always",
    purpose: "leave the fleet: acknowledge, send a final heartbeat, delete the agent's state",
  },
  rotate: {
    payload: z.object({ caFingerprint: fingerprintSchema }),
    by: "agent",
    offered: "always",
    purpose: "renew the certificate now (a fleet CA rollover; `caBundle` carries every trusted CA)",
  },
  upgrade: {
    payload: z.object({ version: semverSchema, image: z.string().min(1).max(512), rolloutId: z.string().max(64).optional() }),
    by: "cluster",
    offered: "always",
    purpose: "run agent `version` from the full `image` reference (a rollout)",
  },
  drain: {
    payload: z.object({}),
    by: "cluster",
    offered: "always",
    purpose: "report workloads until none is left (deregistration)",
  },
  resume: {
    payload: z.object({}),
    by: "cluster",
    offered: "always",
    purpose: "stop waiting for a drain (a cancelled deregistration)",
  },
  drainNodePool: {
    // As kubectl drain's flags: without them a pod no controller recreates, or one with emptyDir
    // data, refuses the drain instead of being lost.
    payload: z.object({
      nodePool: z.string().min(1).max(63),
      force: z.boolean().optional(),
      deleteEmptyDirData: z.boolean().optional(),
    }),
    by: "cluster",
    offered: "nodeActions",
    purpose:
      "cordon and drain the nodes of `nodePool` (retiring it); optional `force` and `deleteEmptyDirData` allow evicting pods no controller recreates and pods with emptyDir data, as kubectl drain's flags",
  },
} as const satisfies Record<string, DirectiveSpec>;

export type DirectiveType = keyof typeof DIRECTIVES;
/** The fields a directive of type T carries besides `id` and `type`. */
export type DirectivePayload<T extends DirectiveType> = z.input<(typeof DIRECTIVES)[T]["payload"]>;
type TypesBy<E extends DirectiveExecutor> = {
  [T in DirectiveType]: (typeof DIRECTIVES)[T]["by"] extends E ? T : never;
}[DirectiveType];
/** Carried out by the agent itself, whatever the cluster behind it. */
export type AgentDirectiveType = TypesBy<"agent">;
/** Carried out in the cluster, by the agent's cluster backend. */
export type ClusterDirectiveType = TypesBy<"cluster">;

export const DIRECTIVE_TYPES = Object.keys(DIRECTIVES) as DirectiveType[];

export function isDirectiveType(type: string): type is DirectiveType {
  return Object.hasOwn(DIRECTIVES, type);
}

export function directiveExecutor(type: DirectiveType): DirectiveExecutor {
  return DIRECTIVES[type].by;
}

/** The directive types the agent carries out itself: every agent reports these. */
export const AGENT_DIRECTIVES = DIRECTIVE_TYPES.filter((t): t is AgentDirectiveType => DIRECTIVES[t].by === "agent");

/** What a cluster backend reports it can carry out: every cluster directive, node actions only where allowed. */
export function clusterCapabilities(o: { nodeActions: boolean }): ClusterDirectiveType[] {
  return DIRECTIVE_TYPES.filter(
    (t): t is ClusterDirectiveType => DIRECTIVES[t].by === "cluster" && (DIRECTIVES[t].offered === "always" || o.nodeActions),
  );
}
