import type { AuditFilter } from "@/lib/contracts/audit";
import type { AttemptFilters } from "@/lib/contracts/tokens";
import type { ClusterFilters } from "./cluster-filters";

type GateKey = { group?: string; selector?: string; maxUnready?: string; ignoreNotReadyLongerThan?: string };

// Every query key the console uses, from one factory, so invalidation is never a guess. Keys are
// hierarchical by the endpoint they read: invalidating `clusters.all` reaches every list, detail,
// heartbeat timeline and match count; the event stream (live-events.ts) finds its queries here.
export const queryKeys = {
  /** GET /api/v1/overview */
  overview: ["overview"] as const,
  /** GET /api/v1/fleet: the fleet's public facts (agent URL, CA, image, required labels) */
  fleet: ["fleet"] as const,
  clusters: {
    all: ["clusters"] as const,
    lists: ["clusters", "list"] as const,
    list: (f: ClusterFilters) => ["clusters", "list", f] as const,
    detail: (id: string) => ["clusters", "detail", id] as const,
    heartbeats: (id: string) => ["clusters", "heartbeats", id] as const,
    /** how many clusters a selector matches (the list endpoint's total) */
    matchCount: (selector: string) => ["clusters", "match-count", selector] as const,
    /** GET /api/v1/clusters/views: saved views of the list */
    views: ["clusters", "views"] as const,
  },
  /** The wizard's state: outside `clusters` so a wizard action refreshing the clusters does not refetch it. */
  deregistration: (clusterId: string) => ["deregistration", clusterId] as const,
  groups: {
    all: ["groups"] as const,
    list: ["groups", "list"] as const,
    preview: (selector: string) => ["groups", "preview", selector] as const,
  },
  /** GET /api/v1/gate: one verdict per selection and tolerance (the page and the Groups column share it) */
  gate: (q: GateKey) => ["gate", q.group ?? "", q.selector ?? "", q.maxUnready ?? "", q.ignoreNotReadyLongerThan ?? ""] as const,
  /** The minted token itself has no key on purpose: it must never sit in the query cache. */
  tokens: {
    all: ["registration-tokens"] as const,
    list: ["registration-tokens", "list"] as const,
  },
  /** GET /api/v1/registration-requests: the approval queue (its pending count feeds the nav badge) */
  registrationRequests: {
    all: ["registration-requests"] as const,
    list: (state: string) => ["registration-requests", "list", state] as const,
    /** The queue's pages: a tab, a search, and the token and label filters ("" for none). */
    queue: (tab: string, q: string, tokenId = "", selector = "") =>
      ["registration-requests", "queue", tab, q, tokenId, selector] as const,
  },
  attempts: {
    all: ["registration-attempts"] as const,
    list: (filters: AttemptFilters) => ["registration-attempts", filters] as const,
    refusals: ["registration-attempts", "refusals"] as const,
  },
  policies: {
    all: ["policies"] as const,
    list: ["policies", "list"] as const,
  },
  rollouts: {
    all: ["rollouts"] as const,
    list: ["rollouts", "list"] as const,
    detail: (id: string) => ["rollouts", "detail", id] as const,
    /** POST /api/v1/rollouts/plan for the form's draft, as it is typed (the input's JSON as the key) */
    planPreview: (input: string) => ["rollouts", "plan-preview", input] as const,
  },
  /** GET /api/v1/labels: keys, values and counts (selector suggestions, required-label preview) */
  labels: ["labels"] as const,
  versions: ["versions"] as const,
  /** GET /api/v1/versions/flagged, pages of one filter (under `versions`: a matrix edit refreshes it) */
  flaggedClusters: (flag: string) => ["versions", "flagged", flag] as const,
  nodePools: {
    capacity: (by: string) => ["node-pools", by] as const,
  },
  settings: ["settings"] as const,
  fleetCa: ["fleet-ca"] as const,
  clusterProfileExport: ["cluster-profile-export"] as const,
  apiKeys: ["api-keys"] as const,
  users: ["users"] as const,
  // Webhooks: subscriptions, and each one's delivery log (under `webhooks`: a test send refreshes both)
  /** GET /api/v1/me/access: the caller's own roles and why */
  myAccess: ["me", "access"] as const,
  /** GET /api/v1/teams, and what a scope would match (POST /api/v1/teams/scope-preview) */
  teams: {
    all: ["teams"] as const,
    list: ["teams", "list"] as const,
    preview: (selector: string, team: string | null) => ["teams", "preview", selector, team ?? ""] as const,
  },
  webhooks: {
    all: ["webhooks"] as const,
    list: ["webhooks", "list"] as const,
    deliveries: (id: string, state?: string) => ["webhooks", "deliveries", id, state ?? "all"] as const,
  },
  /** Cluster API sources, the CAPI Clusters seen on them, and one fleet cluster's origin (under one root: a retry refreshes all) */
  clusterApi: {
    all: ["cluster-api"] as const,
    sources: ["cluster-api", "sources"] as const,
    clusters: (f: { source?: string; step?: string }) => ["cluster-api", "clusters", f.source ?? "", f.step ?? ""] as const,
    forCluster: (clusterId: string) => ["cluster-api", "for-cluster", clusterId] as const,
  },
  audit: {
    all: ["audit"] as const,
    list: (filters: AuditFilter & { cursor?: string }) => ["audit", filters] as const,
  },
};
