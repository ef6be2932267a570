import { z } from "zod";
import { clusterNameSchema } from "@/lib/domain/agent-protocol";
import { ENROLLMENT_FILTERS, HEALTH_FILTERS } from "@/lib/domain/cluster-reason";
import { SNOOZE_OWNER_MAX, SNOOZE_REASON_MAX } from "@/lib/domain/cluster-snooze";
import { CHECKLIST_KEYS } from "@/lib/domain/enrollment";
import { labelKeySchema, labelsSchema } from "@/lib/domain/labels";
import { GUARD_REASONS } from "@/lib/domain/selection-guard";
import { checkSelectorText } from "@/lib/domain/selector";
import { TOKEN_TTL_DEFAULT_SECONDS, TOKEN_TTL_MAX_SECONDS } from "@/lib/domain/tokens";
import { clusterStatusSchema, idName, isoTime, itemsOf, labelsMap } from "./common";
import { route } from "./route";
import { mintedTokenSchema } from "./tokens";

// ---------------------------------------------------------------------------------------------
// Requests

/** notReadySince: NotReady clusters by how long they have been (the rest after them, in either order) */
/** agentVersion, kubernetesVersion: in version order (1.9 before 1.10), clusters without one last */
export const CLUSTER_SORTS = [
  "name",
  "lastHeartbeatAt",
  "registeredAt",
  "status",
  "notReadySince",
  "agentVersion",
  "kubernetesVersion",
] as const;

/** A version or the start of one (1, 1.30, 1.30.2; a leading v is ignored): the list's version filters. */
const versionFilter = z
  .string()
  .trim()
  .regex(/^v?\d{1,6}(\.\d{1,6}){0,2}$/, { error: "must be a version or its start, e.g. 1.30 or 1.30.2" })
  .optional();

/**
 * Which clusters a list shows: the list, the export, saved views and "all N matching" bulk
 * actions all read this one shape, so a new filter is added here once.
 */
export const clusterFilterSchema = z.object({
  status: clusterStatusSchema.optional(),
  /** ready / notReady / pending (heartbeat health, lifecycle phases aside), flapping, degraded */
  health: z.enum(HEALTH_FILTERS).optional(),
  /** enrolled (every checklist item passes) or blocked */
  enrollment: z.enum(ENROLLMENT_FILTERS).optional(),
  /** not enrolled because this checklist item does not pass (as of the last enrollment evaluation) */
  blockedOn: z.enum(CHECKLIST_KEYS).optional(),
  /** true: clusters another active cluster shares its kube-system UID with ("Same cluster as"); false: the rest */
  duplicateUid: z.enum(["true", "false"]).optional(),
  /** clusters whose agent, or Kubernetes, version is this one or starts with it (1.30 matches 1.30.2 and v1.30.0) */
  agentVersion: versionFilter,
  kubernetesVersion: versionFilter,
  /** true: clusters an operator snoozed (the snooze still in force); false: the rest */
  snoozed: z.enum(["true", "false"]).optional(),
  selector: z.string().superRefine(checkSelectorText).optional(),
  group: z.string().max(200).optional(),
  q: z.string().trim().max(200).optional(),
  /** clusters with a node pool on this kubelet version, or on any patch of this minor ("1.31") */
  kubelet: z.string().trim().max(64).optional(),
  /** clusters with a node pool of this instance type */
  instanceType: z.string().trim().max(200).optional(),
});
export type ClusterFilterInput = z.infer<typeof clusterFilterSchema>;

/** Whether a filter sets no condition at all: "all matching" it is the whole fleet. */
export const isEmptyFilter = (f: ClusterFilterInput) => Object.values(f).every((v) => v === undefined || String(v).trim() === "");

/** Page sizes the list offers (the API takes any limit up to 500), and the default. */
export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 50;

export const listClustersQuerySchema = clusterFilterSchema.extend({
  sort: z.enum(CLUSTER_SORTS).default("name"),
  order: z.enum(["asc", "desc"]).default("asc"),
  limit: z.coerce.number().int().min(1).max(500).default(DEFAULT_PAGE_SIZE),
  cursor: z.string().max(200).optional(),
});
export type ListClustersQuery = z.infer<typeof listClustersQuerySchema>;

export const exportClustersQuerySchema = clusterFilterSchema.extend({
  format: z.enum(["csv", "json"]).default("csv"),
  sort: z.enum(CLUSTER_SORTS).default("name"),
  order: z.enum(["asc", "desc"]).default("asc"),
});

/** At most this many clusters per bulk action ("all matching" past it is refused: narrow the filter). */
export const BULK_MAX_CLUSTERS = 5_000;

/**
 * The clusters a bulk action acts on: ids picked on screen, or a filter that the server
 * evaluates again when the action runs ("all N matching").
 */
const selectionShape = {
  ids: z.array(z.string().min(1).max(100)).min(1).max(1_000).optional(),
  filter: clusterFilterSchema.strict().optional(),
};
const oneSelection = (s: { ids?: unknown; filter?: unknown }) => (s.ids === undefined) !== (s.filter === undefined);
const oneSelectionMessage = { message: "name either ids or a filter", path: ["ids"] };

export const bulkLabelsSchema = z
  .object({
    ...selectionShape,
    set: labelsSchema.default({}),
    remove: z.array(labelKeySchema).max(64).default([]),
    /** preview only: nothing is written or audited */
    dryRun: z.boolean().default(false),
  })
  .strict()
  .refine(oneSelection, oneSelectionMessage);
export type BulkLabelsInput = z.input<typeof bulkLabelsSchema>;

/**
 * What a destructive bulk action's real run carries besides the selection: a reason, `confirmCount`
 * (the number of clusters the person saw and confirmed; the server counts again and answers 409
 * count_changed when they differ) and, for a selection that covers the whole fleet or includes
 * production clusters, `confirmPhrase`: the sentence the dry run's `guard` names, typed by an admin
 * (403 admin_required, 400 confirmation_mismatch). "All matching" needs a filter (400 filter_required).
 */
const confirmedBulkShape = {
  ...selectionShape,
  confirmCount: z.number().int().min(0).optional(),
  confirmPhrase: z.string().max(300).optional(),
  dryRun: z.boolean().default(false),
};

function requireConfirmation(why: string) {
  return (b: { dryRun: boolean; reason?: string; confirmCount?: number }, ctx: z.RefinementCtx) => {
    if (b.dryRun) return;
    if (!b.reason) ctx.addIssue({ code: "custom", path: ["reason"], message: `is required: say why ${why}` });
    if (b.confirmCount === undefined)
      ctx.addIssue({ code: "custom", path: ["confirmCount"], message: "is required: the number of clusters confirmed" });
  };
}

/** Bulk drain-then-deregister (see requireConfirmation). */
export const bulkDeregistrationSchema = z
  .object({ ...confirmedBulkShape, reason: z.string().trim().max(500).optional() })
  .strict()
  .refine(oneSelection, oneSelectionMessage)
  .superRefine(requireConfirmation("these clusters are drained"));
export type BulkDeregistrationInput = z.input<typeof bulkDeregistrationSchema>;

/**
 * Retire one node pool (by name) on each selected cluster, behind the bulk drain's guard.
 * Clusters without the pool, not Ready, or where it is the last active pool are reported, not fatal.
 */
export const bulkRetireNodePoolSchema = z
  .object({ ...confirmedBulkShape, pool: z.string().trim().min(1).max(253), reason: z.string().trim().max(300).optional() })
  .strict()
  .refine(oneSelection, oneSelectionMessage)
  .superRefine(requireConfirmation("the pool is retired"));
export type BulkRetireNodePoolInput = z.input<typeof bulkRetireNodePoolSchema>;

export const savedViewInputSchema = z
  .object({
    name: z.string().trim().min(1).max(80),
    /** the cluster list's query string (without "?"), e.g. "status=NotReady&selector=env%3Dprod" */
    query: z.string().max(2_000),
    /** the team (name or id) the view is for; without it, the fleet's for a fleet operator, else the caller's one team */
    team: z.string().trim().min(1).max(100).optional(),
  })
  .strict();
export type SavedViewInput = z.input<typeof savedViewInputSchema>;

export const provisionClusterSchema = z
  .object({
    name: clusterNameSchema,
    labels: labelsSchema.default({}),
    description: z.string().trim().max(500).optional(),
    /** How long the claim token minted with the cluster lives. */
    tokenTtlSeconds: z.number().int().min(60).max(TOKEN_TTL_MAX_SECONDS).default(TOKEN_TTL_DEFAULT_SECONDS),
  })
  .strict();
export type ProvisionClusterInput = z.input<typeof provisionClusterSchema>;

export const CLUSTER_OWNER_MAX = 120;
export const CLUSTER_NOTES_MAX = 4_000;

/** A descriptive text field: trimmed, at most `max` characters; empty (or null) clears it. */
const descriptiveText = (what: string, max: number) =>
  z
    .string({ error: `${what} must be text, or null to clear it.` })
    .trim()
    .max(max, { error: `${what} is at most ${max.toLocaleString("en")} characters.` })
    .transform((s) => s || null)
    .nullable()
    .optional();

export const updateClusterSchema = z
  .object({
    labels: labelsSchema.optional(),
    description: z.string().trim().max(500).nullable().optional(),
    /** Who looks after the cluster (a team, a person, an on-call alias). */
    owner: descriptiveText("Owner", CLUSTER_OWNER_MAX),
    /** Free-text notes for whoever opens the cluster next. */
    notes: descriptiveText("Notes", CLUSTER_NOTES_MAX),
  })
  .strict()
  .refine((p) => p.labels !== undefined || p.description !== undefined || p.owner !== undefined || p.notes !== undefined, {
    message: "name labels, description, owner or notes",
  });

export const revokeCertificateSchema = z.object({ reason: z.string().trim().min(3).max(300) }).strict();

/** POST /api/v1/clusters/{id}/snooze: silence a known-broken cluster until a time (lib/domain/cluster-snooze.ts). */
export const snoozeClusterSchema = z
  .object({
    until: z.iso.datetime({ offset: true, error: "must be an ISO 8601 time, e.g. 2026-12-07T09:00:00Z" }),
    reason: z
      .string({ error: "is required: say why the cluster is snoozed" })
      .trim()
      .min(3, { error: "is required: say why the cluster is snoozed (at least 3 characters)" })
      .max(SNOOZE_REASON_MAX, { error: `is at most ${SNOOZE_REASON_MAX} characters` }),
    owner: z
      .string({ error: "is required: who looks after the cluster meanwhile" })
      .trim()
      .min(1, { error: "is required: who looks after the cluster meanwhile" })
      .max(SNOOZE_OWNER_MAX, { error: `is at most ${SNOOZE_OWNER_MAX} characters` }),
  })
  .strict();
export type SnoozeClusterInput = z.input<typeof snoozeClusterSchema>;

/** Retiring a pool drains its nodes: always with a reason (audited); what the drain may lose is opt-in. */
export const retireNodePoolSchema = z
  .object({
    reason: z.string().trim().min(1, "is required: say why the pool is retired").max(300),
    /** Evict pods no controller recreates (they are gone for good), as kubectl drain --force. */
    force: z.boolean().optional(),
    /** Evict pods with emptyDir volumes (their data is deleted), as kubectl drain --delete-emptydir-data. */
    deleteEmptyDirData: z.boolean().optional(),
  })
  .strict();
export type RetireNodePoolInput = z.output<typeof retireNodePoolSchema>;

export const heartbeatsQuerySchema = z.object({
  minutes: z.coerce
    .number()
    .int()
    .min(5)
    .max(7 * 24 * 60)
    .default(360),
});

// ---------------------------------------------------------------------------------------------
// Responses

/** Why a cluster is not plainly healthy (lib/domain/cluster-reason.ts), most serious first. */
export const clusterReasonSchema = z.discriminatedUnion("code", [
  z.object({ code: z.literal("pending") }),
  z.object({ code: z.literal("noHeartbeat"), since: isoTime }),
  z.object({ code: z.literal("apiServerDown") }),
  z.object({ code: z.literal("degraded") }),
  /** other active clusters report this cluster's kube-system UID: the same Kubernetes cluster */
  z.object({ code: z.literal("sameCluster"), clusters: z.array(idName) }),
  z.object({ code: z.literal("flapping"), changes: z.number() }),
  z.object({ code: z.literal("missingLabels"), keys: z.array(z.string()) }),
  /** still in phase Provisioning (entered at `since`) after the fleet's provisioning threshold */
  z.object({ code: z.literal("provisioningOverdue"), since: isoTime, thresholdMinutes: z.number() }),
]);

/** A snooze in force: until when, why, who looks after the cluster, who snoozed it and when. */
export const clusterSnoozeSchema = z.object({
  until: isoTime,
  at: isoTime,
  reason: z.string(),
  owner: z.string(),
  by: z.string().nullable(),
});
export type ClusterSnooze = z.infer<typeof clusterSnoozeSchema>;

export const clusterListItemSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: clusterStatusSchema,
  phase: z.string(),
  labels: labelsMap,
  lastHeartbeatAt: isoTime.nullable(),
  agentVersion: z.string().nullable(),
  kubernetesVersion: z.string().nullable(),
  registeredAt: isoTime.nullable(),
  reasons: z.array(clusterReasonSchema),
  /** nodes across the cluster's pools; null before it reports any */
  nodeCount: z.number().nullable(),
  /** when its status turned NotReady, while it is NotReady; null otherwise */
  notReadySince: isoTime.nullable(),
  /** when every enrollment checklist item last started passing; null while one does not */
  enrolledAt: isoTime.nullable(),
  /** the checklist items holding a cluster that is not enrolled back; null before its first evaluation */
  enrollmentBlockedOn: z.array(z.enum(CHECKLIST_KEYS)).nullable(),
  /** who looks after the cluster, and notes (descriptive, operators) */
  owner: z.string().nullable(),
  notes: z.string().nullable(),
  /** the snooze in force; null when none (or it ended: expired, or the status or phase changed) */
  snooze: clusterSnoozeSchema.nullable(),
});
/** What the list shows of enrollment and NotReady time; the cluster page has the whole checklist and history. */
const LIST_ONLY = { notReadySince: true, enrolledAt: true, enrollmentBlockedOn: true } as const;
export type ClusterListItem = z.infer<typeof clusterListItemSchema>;

export const clusterListSchema = z.object({
  items: z.array(clusterListItemSchema),
  nextCursor: z.string().nullable(),
  /** exact with no filter or a selector alone; otherwise exact up to 1,000, past that `totalCapped` and the cap */
  total: z.number(),
  totalCapped: z.boolean(),
  notReadyThresholdSeconds: z.number(),
  now: isoTime,
});
export type ClusterList = z.infer<typeof clusterListSchema>;

export const checklistItemSchema = z.object({
  key: z.string(),
  label: z.string(),
  ok: z.boolean(),
  state: z.enum(["pass", "fail", "pending"]),
  reason: z.string(),
  since: z.string().nullable(),
});
export type ChecklistItem = z.infer<typeof checklistItemSchema>;

export const nodePoolSchema = z.object({
  name: z.string(),
  nodeCount: z.number(),
  readyNodes: z.number(),
  kubeletVersion: z.string().nullable(),
  instanceType: z.string().nullable(),
  cpuCores: z.number().nullable(),
  memoryGiB: z.number().nullable(),
  state: z.string(),
});
export type NodePool = z.infer<typeof nodePoolSchema>;

export const clusterEventSchema = z.object({
  kind: z.string(),
  from: z.string().nullable(),
  to: z.string(),
  reason: z.string(),
  at: isoTime,
});
export type ClusterEvent = z.infer<typeof clusterEventSchema>;

export const clusterDetailSchema = clusterListItemSchema.omit(LIST_ONLY).extend({
  phaseChangedAt: isoTime,
  statusChangedAt: isoTime,
  apiServerUrl: z.string().nullable(),
  caFingerprint: z.string().nullable(),
  /** The kube-system namespace's UID the agent reports: the Kubernetes cluster's own identity. */
  clusterUid: z.string().nullable(),
  registrationToken: idName.nullable(),
  description: z.string().nullable(),
  /**
   * Directives the agent last said it can carry out (its heartbeat's `capabilities`); null when it
   * has not said (an older agent, or no heartbeat yet).
   */
  capabilities: z.array(z.string()).nullable(),
  /** The admin's link out (Settings: clusterLinkTemplate) filled in for this cluster; null when none is set. */
  link: z
    .union([z.object({ url: z.string(), host: z.string() }), z.object({ url: z.null(), missingLabels: z.array(z.string()) })])
    .nullable(),
  /**
   * The kubectl context (Settings: kubeContextTemplate) filled in for this cluster, which every
   * command the page offers names with --context; null when none is set (the current context).
   */
  kubeContext: z
    .union([z.object({ context: z.string() }), z.object({ context: z.null(), missingLabels: z.array(z.string()) })])
    .nullable(),
  /**
   * The teams whose scope takes this cluster in (lib/domain/teams.ts): who besides fleet roles sees
   * and acts on it, and why (the scope's terms its labels satisfy). Members by role.
   */
  teams: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      selector: z.string(),
      matched: z.array(z.string()),
      members: z.object({ viewer: z.number(), operator: z.number(), admin: z.number() }),
    }),
  ),
  /** A bulk drain's turn this cluster waits for (lib/server/lifecycle/drain-queue.ts); null: none. */
  queuedDrain: z.object({ batchId: z.string(), startsAt: isoTime, by: z.string(), reason: z.string() }).nullable(),
  health: z.object({ apiServer: z.string().nullable(), logs: z.boolean().nullable(), metrics: z.boolean().nullable() }),
  /** userPods: pods outside system namespaces and DaemonSets, when the agent reports them (real clusters). */
  workloads: z
    .object({ pods: z.number(), namespaces: z.number().nullable(), userPods: z.number().nullable().optional() })
    .nullable(),
  appliedPolicyRevision: z.string().nullable(),
  desiredPolicyRevision: z.string().nullable(),
  nodePools: z.array(nodePoolSchema),
  /** Directives the agent acknowledged as failed, with its reason, newest first. */
  failedDirectives: z.array(z.object({ id: z.string(), type: z.string(), reason: z.string(), at: isoTime.nullable() })),
  certificate: z
    .object({ serial: z.string(), fingerprint: z.string(), notBefore: isoTime, notAfter: isoTime, revoked: z.boolean() })
    .nullable(),
  enrollment: z.object({ complete: z.boolean(), enrolledAt: isoTime.nullable(), items: z.array(checklistItemSchema) }),
  groups: z.array(idName),
  events: z.array(clusterEventSchema),
  notReadyThresholdSeconds: z.number(),
  /** When the agent's reports were last current, once they are not (NotReady or stale); null while current. */
  factsAsOf: isoTime.nullable(),
});
export type ClusterDetail = z.infer<typeof clusterDetailSchema>;

/** POST /api/v1/clusters's answer: the pre-created cluster and, once only, the token that claims it. */
export const preCreatedClusterSchema = clusterDetailSchema.extend({ registrationToken: mintedTokenSchema });
export type PreCreated = z.infer<typeof preCreatedClusterSchema>;

export const clusterHeartbeatsSchema = z.object({
  bucketSeconds: z.number(),
  expectedPerBucket: z.number(),
  items: z.array(z.object({ at: isoTime, count: z.number() })),
});
export type ClusterHeartbeats = z.infer<typeof clusterHeartbeatsSchema>;

const labelSummarySchema = z.object({
  matched: z.number(),
  changed: z.number(),
  unchanged: z.number(),
  gains: z.array(z.object({ key: z.string(), value: z.string(), count: z.number() })),
  changes: z.array(z.object({ key: z.string(), from: z.string(), to: z.string(), count: z.number() })),
  removals: z.array(z.object({ key: z.string(), count: z.number() })),
});

/** The bulk label change: its preview (dryRun) or what was applied. `rows` lists at most 200 changed clusters. */
export const bulkLabelsResultSchema = z.object({
  dryRun: z.boolean(),
  summary: labelSummarySchema,
  rows: z.array(z.object({ id: z.string(), name: z.string(), before: labelsMap, after: labelsMap })),
  /** Through a team: selected clusters outside its scopes, left alone. Absent for fleet roles. */
  leftOut: z.number().optional(),
});
export type BulkLabelsResult = z.infer<typeof bulkLabelsResultSchema>;

const countOf = z.object({ value: z.string().nullable(), count: z.number() });

/** The selection by the `env` and `region` labels (null: without it) and by cluster group (a cluster may be in several). */
export const selectionBreakdownSchema = z.object({
  env: z.array(countOf),
  region: z.array(countOf),
  group: z.array(z.object({ name: z.string(), count: z.number() })),
  /** clusters in no group */
  ungrouped: z.number(),
});
export type SelectionBreakdown = z.infer<typeof selectionBreakdownSchema>;

export const selectionGuardSchema = z.object({
  reasons: z.array(z.enum(GUARD_REASONS)),
  production: z.number(),
  fleet: z.number(),
  phrase: z.string(),
  withinTeams: z.boolean().optional(),
  confirmable: z.boolean().optional(),
});

export const bulkDeregistrationResultSchema = z.object({
  dryRun: z.boolean(),
  /** the clusters acted on (through a team: those in its scopes) */
  matched: z.number(),
  /**
   * Through a team: how many clusters the filter also matches outside its scopes, left alone
   * (counted, never named). Picked ids outside them are answered as unknown ids are (a not_found
   * result) and not counted here. Absent for fleet roles.
   */
  leftOut: z.number().optional(),
  /** a dry run's selection broken down, for the confirmation */
  breakdown: selectionBreakdownSchema.optional(),
  /** a dry run's: why the selection needs an admin and the typed sentence; null: the count is enough */
  guard: selectionGuardSchema.nullable().optional(),
  /** bulk drain: how many start at once and then each minute (the rest wait in the drain queue) */
  startsPerMinute: z.number().optional(),
  /** the clusters acted on now */
  started: z.number(),
  /** bulk drain: the clusters waiting in the drain queue for their turn, with the batch to cancel them by */
  queued: z.number().optional(),
  batchId: z.string().optional(),
  results: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      ok: z.boolean(),
      /** waits in the drain queue: starts at `startsAt` */
      startsAt: isoTime.optional(),
      error: z.string().optional(),
      message: z.string().optional(),
    }),
  ),
});
export type BulkDeregistrationResult = z.infer<typeof bulkDeregistrationResultSchema>;

export const drainQueueSchema = z.object({
  batches: z.array(
    z.object({
      batchId: z.string(),
      by: z.string(),
      reason: z.string(),
      queued: z.number(),
      queuedAt: isoTime,
      nextAt: isoTime,
      lastAt: isoTime,
    }),
  ),
});
export type DrainQueue = z.infer<typeof drainQueueSchema>;

export const savedViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  query: z.string(),
  createdBy: z.string(),
  createdAt: isoTime,
  /** the team whose view it is (seen by its members); null: the fleet's, shared by the fleet roles */
  team: z.string().nullable(),
});
export type SavedView = z.infer<typeof savedViewSchema>;

export const revokedCertificatesSchema = z.object({ revoked: z.array(z.string()) });

// ---------------------------------------------------------------------------------------------
// Routes

export const clusterRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/clusters",
    summary:
      "List clusters (filter, sort, paginate); `total` is exact for a selector alone, capped at 1,000 (`totalCapped`) otherwise",
    role: "viewer",
    scope: "clusters",
    query: listClustersQuerySchema,
    response: clusterListSchema,
  }),
  export: route({
    method: "GET",
    path: "/api/v1/clusters/export",
    summary: "Every cluster the filter matches, streamed as CSV or JSON (ISO times; CSV cells safe against formula injection)",
    role: "viewer",
    scope: "clusters",
    query: exportClustersQuerySchema,
  }),
  bulkLabels: route({
    method: "POST",
    path: "/api/v1/clusters/bulk/labels",
    summary:
      "Set and remove labels on many clusters (ids, or a filter evaluated now) as one audited change; `dryRun` previews it. Required labels cannot be removed; through a team, only its clusters and never the labels a scope reads",
    role: "operator",
    scope: "clusters",
    body: bulkLabelsSchema,
    response: bulkLabelsResultSchema,
  }),
  bulkDeregistration: route({
    method: "POST",
    path: "/api/v1/clusters/bulk/deregistration",
    summary:
      "Start drain-then-deregister on many clusters (ids, or a filter evaluated now); a result per cluster. Needs a reason and `confirmCount` (409 count_changed when the selection's count differs); a filter needs at least one condition (400 filter_required). A selection that covers the whole fleet or includes production clusters (Settings: productionSelector) needs an admin (403 admin_required) and `confirmPhrase`, the dry run's `guard.phrase` (400 confirmation_mismatch), and is audited with the guard. `startsPerMinute` clusters start at once, then as many a minute: the rest wait in the drain queue (`queued`, `batchId`; each result says when it starts). `dryRun` answers the count, its breakdown by env, region and group, and the guard. A picked id that names no cluster is a not_found result. Through a team: only the clusters in its scopes are acted on; what the filter matches outside them is counted as `leftOut` (never named), and a picked id outside them is answered as an unknown id. For a team the whole fleet is the whole of its scope (`guard.withinTeams`; `guard.fleet` counts it), and the admin a guarded selection needs is an admin of every cluster in it: a fleet admin, or a team admin of a team whose scope holds it (`guard.confirmable` says whether the caller is one); a team operator is refused (403 admin_required). Every start is audited under the team that reaches its cluster",
    role: "operator",
    scope: "clusters",
    body: bulkDeregistrationSchema,
    response: bulkDeregistrationResultSchema,
  }),
  bulkRetireNodePool: route({
    method: "POST",
    path: "/api/v1/clusters/bulk/retire-node-pool",
    summary:
      "Retire the node pool `pool` on many clusters (ids, or a filter evaluated now); a result per cluster (`started`: pools retired). Guarded like bulk drain: a reason and `confirmCount` (409 count_changed), a filter with a condition (400 filter_required), and for the whole fleet or production clusters an admin (403 admin_required) and `confirmPhrase` (400 confirmation_mismatch). Each cluster is refused as a single retirement is (not_found, cluster_not_ready, last_node_pool, incompatible_agent, conflict). `dryRun` answers the count, its breakdown, the guard and who would retire. Through a team, bounded to its scopes as bulk drain is (`leftOut`; ids outside them read as unknown; the whole fleet is the whole of its scope; a guarded selection needs a team admin of every cluster in it)",
    role: "operator",
    scope: "clusters",
    body: bulkRetireNodePoolSchema,
    response: bulkDeregistrationResultSchema,
  }),
  drainQueue: route({
    method: "GET",
    path: "/api/v1/drain-queue",
    summary:
      "Bulk drains waiting for their turn, by batch: who confirmed them, why, how many wait and when the next and the last start. Through a team, only the drains of clusters in its scopes: a batch that also holds other clusters is shown by its in-scope part (its counts and times are those of the team's clusters), and a batch with none of them is not listed",
    role: "viewer",
    scope: "clusters",
    response: drainQueueSchema,
  }),
  cancelDrainBatch: route({
    method: "DELETE",
    path: "/api/v1/drain-queue/{batchId}",
    summary:
      "Cancel the drains of a bulk drain that have not started yet (audited); those already started go on in their wizards. 404 when none wait. Through a team, only the waiting drains of clusters in its scopes are cancelled (the batch's others wait on, untouched); a batch with none of them waiting answers 404 exactly as an unknown batch",
    role: "operator",
    scope: "clusters",
    response: z.object({ cancelled: z.number() }),
  }),
  listViews: route({
    method: "GET",
    path: "/api/v1/clusters/views",
    summary:
      "Saved views of the cluster list (named filters): the fleet's, shared by the fleet roles, and those of each of the caller's teams (`team`), seen by the team's members only. Someone with team roles only sees their teams' views, not the fleet's",
    role: "viewer",
    scope: "member",
    response: itemsOf(savedViewSchema),
  }),
  createView: route({
    method: "POST",
    path: "/api/v1/clusters/views",
    summary:
      "Save a named view of the cluster list, for the fleet or for a team: `team` (a team the caller operates in; 404 for any other, 403 where they are a viewer) makes it that team's; without it a fleet operator's view is the fleet's and a team operator's is their team's (400 when they operate in several: name one). Names are unique across the fleet (409 conflict, in the same words whoever holds the name)",
    role: "operator",
    scope: "member",
    body: savedViewInputSchema,
    response: savedViewSchema,
    status: 201,
  }),
  deleteView: route({
    method: "DELETE",
    path: "/api/v1/clusters/views/{id}",
    summary: "Delete a saved view",
    role: "operator",
    scope: "view",
    status: 204,
  }),
  provision: route({
    method: "POST",
    path: "/api/v1/clusters",
    summary:
      "Pre-create a cluster (phase Provisioning) and mint the token bound to it that claims it (`registrationToken`, shown once)",
    role: "operator",
    scope: "fleet",
    body: provisionClusterSchema,
    response: preCreatedClusterSchema,
    status: 201,
    noStore: true,
  }),
  get: route({
    method: "GET",
    path: "/api/v1/clusters/{id}",
    summary: "A cluster with identity, pools, certificate, enrollment and events",
    role: "viewer",
    scope: "cluster",
    response: clusterDetailSchema,
  }),
  update: route({
    method: "PATCH",
    path: "/api/v1/clusters/{id}",
    summary: "Change descriptive fields: labels, description, owner, notes (identity fields are immutable)",
    role: "operator",
    scope: "cluster",
    body: updateClusterSchema,
    response: clusterDetailSchema,
  }),
  heartbeats: route({
    method: "GET",
    path: "/api/v1/clusters/{id}/heartbeats",
    summary: "Heartbeats per minute (gaps are zeros)",
    role: "viewer",
    scope: "cluster",
    query: heartbeatsQuerySchema,
    response: clusterHeartbeatsSchema,
  }),
  revokeCertificate: route({
    method: "POST",
    path: "/api/v1/clusters/{id}/certificate/revoke",
    summary: "Revoke the cluster's certificates",
    role: "operator",
    scope: "cluster",
    body: revokeCertificateSchema,
    response: revokedCertificatesSchema,
  }),
  retireNodePool: route({
    method: "POST",
    path: "/api/v1/clusters/{id}/node-pools/{pool}/retire",
    summary:
      "Retire a node pool (drainNodePool directive) with a reason. Without `force` a pod no controller recreates " +
      "refuses the drain, without `deleteEmptyDirData` a pod with emptyDir data does (the directive fails naming them; " +
      "retire again allowing it). 404 not_found (no such pool), 422 incompatible_agent (its agent does not advertise " +
      "drainNodePool), 409 conflict (a drain under way), 409 cluster_not_ready (the cluster is not Ready), " +
      "409 last_node_pool (its last active pool)",
    role: "operator",
    scope: "cluster",
    body: retireNodePoolSchema,
    response: clusterDetailSchema,
  }),
  snooze: route({
    method: "POST",
    path: "/api/v1/clusters/{id}/snooze",
    summary:
      "Snooze a known-broken cluster until a time, with a reason and who looks after it: it leaves needs attention, its webhook alerts " +
      "stop, and a gate may tolerate it, until the time or until its status or phase changes. Audited. 400 invalid_request (a past end, " +
      "or more than 30 days ahead)",
    role: "operator",
    scope: "cluster",
    body: snoozeClusterSchema,
    response: clusterDetailSchema,
  }),
  unsnooze: route({
    method: "DELETE",
    path: "/api/v1/clusters/{id}/snooze",
    summary: "End a cluster's snooze now (its alerts and needs attention resume). Audited",
    role: "operator",
    scope: "cluster",
    response: clusterDetailSchema,
  }),
};
