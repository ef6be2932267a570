import type { AuditFilters } from "./audit";
import type { ClusterFilters } from "./clusters";
import type { AttemptFilters } from "./tokens";

// The console's query keys, gathered from the data-hook files as they were (one factory replaces
// these objects next).

// Versions, Rollouts, Node pools, and the API keys and Users sections of Settings.
export const operationsKeys = {
  versions: ["versions"] as const,
  rollouts: ["rollouts"] as const,
  rolloutList: ["rollouts", "list"] as const,
  rollout: (id: string) => ["rollouts", "detail", id] as const,
  nodePools: (by: string) => ["node-pools", by] as const,
  labelKeys: ["node-pools", "label-keys"] as const,
  matchCount: (selector: string) => ["clusters", "match-count", selector] as const,
  apiKeys: ["api-keys"] as const,
  users: ["users"] as const,
  clusters: ["clusters"] as const,
  audit: ["audit"] as const,
};

// The drain-then-deregister wizard and policies.
export const lifecycleKeys = {
  deregistration: (clusterId: string) => ["deregistration", clusterId] as const,
  policies: ["policies"] as const,
  policyList: ["policies", "list"] as const,
  /** Pages that show a cluster (detail, lists) go stale when the wizard moves it. */
  clusters: ["clusters"] as const,
  overview: ["overview"] as const,
  audit: ["audit"] as const,
};

// Settings, the fleet CA and the audit log.
export const queryKeys = {
  settings: ["settings"] as const,
  fleetCa: ["fleet-ca"] as const,
  audit: (filters: AuditFilters) => ["audit", filters] as const,
  auditAll: ["audit"] as const,
};

// Query keys: every key these hooks use, so the event stream can find and patch them.
export const clusterKeys = {
  overview: ["overview"] as const,
  clusters: ["clusters"] as const,
  lists: ["clusters", "list"] as const,
  list: (f: ClusterFilters) => ["clusters", "list", f] as const,
  detail: (id: string) => ["clusters", "detail", id] as const,
  heartbeats: (id: string) => ["clusters", "heartbeats", id] as const,
  fleet: ["fleet"] as const,
  groups: ["groups"] as const,
};

// Query keys of the Tokens page, in one place so invalidation is never a guess. The minted token
// itself has no key on purpose: it must never sit in the query cache.
export const tokenKeys = {
  all: ["registration-tokens"] as const,
  list: ["registration-tokens", "list"] as const,
  attemptsAll: ["registration-attempts"] as const,
  attempts: (filters: AttemptFilters) => ["registration-attempts", filters] as const,
  fleet: ["fleet-facts"] as const,
};

// Query keys of the Groups page, in one place so invalidation is never a guess.
export const groupKeys = {
  all: ["groups"] as const,
  list: ["groups", "list"] as const,
  preview: (selector: string) => ["groups", "preview", selector] as const,
};
