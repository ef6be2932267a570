import { missingRequiredLabels, type Labels } from "./labels";
import { conditionHolds, healthStatus, type HealthStatus, type StatusFacts } from "./status";

// Why a cluster is not plainly healthy, as a pure function of stored facts: the list's reason
// column, the cluster page and the list's health filter (lib/server/clusters/cluster-list-sql.ts
// writes the same rules in SQL; an integration test compares the two on both engines).

/** The list's health filter: a health status, or a condition a Ready cluster can have too. */
export const HEALTH_FILTERS = ["ready", "notReady", "pending", "flapping", "degraded"] as const;
export type HealthFilter = (typeof HEALTH_FILTERS)[number];

/** The list's enrollment filter: every checklist item passes, or one does not (blocked). */
export const ENROLLMENT_FILTERS = ["enrolled", "blocked"] as const;
export type EnrollmentFilter = (typeof ENROLLMENT_FILTERS)[number];

/** The health filters that are a health status (lib/domain/status.ts, HEALTH_RULES). */
export const HEALTH_FILTER_STATUS: Partial<Record<HealthFilter, HealthStatus>> = {
  ready: "Ready",
  notReady: "NotReady",
  pending: "Pending",
};

/** Status changes are counted over this window for flapping. */
export const FLAPPING_WINDOW_MS = 3_600_000;

export type ClusterReason =
  /** no heartbeat has ever arrived */
  | { code: "pending" }
  /** the last heartbeat is older than the NotReady threshold; `since` is when it arrived */
  | { code: "noHeartbeat"; since: string }
  | { code: "apiServerDown" }
  | { code: "degraded" }
  | { code: "flapping"; changes: number }
  | { code: "missingLabels"; keys: string[] }
  | { code: "notEnrolled" };
export type ReasonCode = ClusterReason["code"];

export type ReasonFacts = StatusFacts & {
  labels: Labels;
  enrolledAt: Date | null;
  /** status changes recorded in the last FLAPPING_WINDOW_MS */
  statusChangesLastHour: number;
};

export type ReasonRules = {
  notReadyThresholdSeconds: number;
  flappingThresholdPerHour: number;
  requiredLabels: readonly string[];
};

/** More than `threshold` status changes in the last hour. */
export function isFlapping(changesLastHour: number, thresholdPerHour: number): boolean {
  return changesLastHour > thresholdPerHour;
}

/** The heartbeat is fresh: the agent's other reports (apiServer health, nodes...) are current. */
function heartbeatFresh(f: StatusFacts, now: Date, thresholdSeconds: number): boolean {
  return conditionHolds({ fact: "heartbeat", is: "fresh" }, f, now, thresholdSeconds);
}

/** The agent reports its API server degraded, and the report is current. */
export function isDegraded(f: StatusFacts, now: Date, thresholdSeconds: number): boolean {
  return f.apiServerHealth === "degraded" && heartbeatFresh(f, now, thresholdSeconds);
}

/**
 * Every reason a cluster is not plainly healthy, most serious first; empty for a healthy one.
 * An apiServer report is only a reason while it is current: once heartbeats stop, "no heartbeat"
 * says it all and the last report is only a last-known fact.
 */
export function clusterReasons(f: ReasonFacts, rules: ReasonRules, now: Date): ClusterReason[] {
  const reasons: ClusterReason[] = [];
  const fresh = heartbeatFresh(f, now, rules.notReadyThresholdSeconds);
  if (f.lastHeartbeatAt === null) reasons.push({ code: "pending" });
  else if (!fresh) reasons.push({ code: "noHeartbeat", since: f.lastHeartbeatAt.toISOString() });
  else if (f.apiServerHealth === "down") reasons.push({ code: "apiServerDown" });
  else if (f.apiServerHealth === "degraded") reasons.push({ code: "degraded" });
  if (isFlapping(f.statusChangesLastHour, rules.flappingThresholdPerHour))
    reasons.push({ code: "flapping", changes: f.statusChangesLastHour });
  const missing = missingRequiredLabels(f.labels, rules.requiredLabels);
  if (missing.length) reasons.push({ code: "missingLabels", keys: missing });
  if (f.enrolledAt === null) reasons.push({ code: "notEnrolled" });
  return reasons;
}

/** Whether a cluster matches a health filter (the SQL in cluster-list-sql.ts says the same). */
export function matchesHealthFilter(filter: HealthFilter, f: ReasonFacts, rules: ReasonRules, now: Date): boolean {
  const status = HEALTH_FILTER_STATUS[filter];
  if (status) return healthStatus(f, now, rules.notReadyThresholdSeconds) === status;
  if (filter === "degraded") return isDegraded(f, now, rules.notReadyThresholdSeconds);
  return isFlapping(f.statusChangesLastHour, rules.flappingThresholdPerHour);
}

/** Whether a cluster matches an enrollment filter. */
export function matchesEnrollmentFilter(filter: EnrollmentFilter, f: Pick<ReasonFacts, "enrolledAt">): boolean {
  return filter === "enrolled" ? f.enrolledAt !== null : f.enrolledAt === null;
}

/**
 * When the agent's reports (API server health, nodes, versions, workloads) were last current, if
 * they are no longer: the cluster is NotReady or its heartbeat is older than the threshold. With
 * its API server down the agent cannot read the cluster either, so its facts are as old as the
 * last heartbeat before that. Null when the facts are current or there are none.
 */
export function factsAsOf(f: StatusFacts, now: Date, thresholdSeconds: number): Date | null {
  if (f.lastHeartbeatAt === null) return null;
  return healthStatus(f, now, thresholdSeconds) === "Ready" ? null : f.lastHeartbeatAt;
}
