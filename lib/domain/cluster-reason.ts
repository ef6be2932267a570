import { missingRequiredLabels, type Labels } from "./labels";
import { conditionHolds, healthStatus, type HealthStatus, type Phase, type StatusFacts } from "./status";

// Why a cluster is not plainly healthy, as a pure function of stored facts: the list's reason
// column, the cluster page and the list's health filter. Enrollment is not a reason: it has its
// own column, filter and checklist, so a fleet still enrolling does not bury real problems (lib/server/clusters/cluster-list-sql.ts
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

/** The phase of a pre-created cluster until an agent claims it. */
export const PROVISIONING_PHASE: Phase = "Provisioning";

/** Status changes are counted over this window for flapping. */
export const FLAPPING_WINDOW_MS = 3_600_000;

/**
 * A cluster in these phases no longer counts as a registration of its Kubernetes cluster: one
 * being deregistered does not flag the registration that replaces it (a removed one is gone).
 */
export const SAME_CLUSTER_IGNORED_PHASES: readonly Phase[] = ["Deregistration"];

/** Another registered cluster reporting the same kube-system UID (docs/protocol.md, clusterUid). */
export type SameClusterRef = { id: string; name: string };

export type ClusterReason =
  /** no heartbeat has ever arrived */
  | { code: "pending" }
  /** the last heartbeat is older than the NotReady threshold; `since` is when it arrived */
  | { code: "noHeartbeat"; since: string }
  | { code: "apiServerDown" }
  | { code: "degraded" }
  /** another active cluster reports the same kube-system UID: one Kubernetes cluster registered twice */
  | { code: "sameCluster"; clusters: SameClusterRef[] }
  | { code: "flapping"; changes: number }
  | { code: "missingLabels"; keys: string[] }
  /** in phase Provisioning for longer than the threshold; `since` is when it entered the phase */
  | { code: "provisioningOverdue"; since: string; thresholdMinutes: number };
export type ReasonCode = ClusterReason["code"];

export type ReasonFacts = StatusFacts & {
  /** when the cluster entered its phase */
  phaseChangedAt: Date;
  labels: Labels;
  /** status changes recorded in the last FLAPPING_WINDOW_MS */
  statusChangesLastHour: number;
  /** the other active clusters reporting this cluster's UID (sameClusterPeers), by name */
  sameClusterAs?: readonly SameClusterRef[];
};

export type ReasonRules = {
  notReadyThresholdSeconds: number;
  flappingThresholdPerHour: number;
  provisioningThresholdMinutes: number;
  requiredLabels: readonly string[];
};

/** More than `threshold` status changes in the last hour. */
export function isFlapping(changesLastHour: number, thresholdPerHour: number): boolean {
  return changesLastHour > thresholdPerHour;
}

/**
 * In phase Provisioning for longer than `thresholdMinutes` (the SQL form is
 * provisioningOverdueCondition in lib/server/clusters/cluster-list-sql.ts; an integration test
 * compares the two on both engines).
 */
export function isProvisioningOverdue(f: { phase: string; phaseChangedAt: Date }, thresholdMinutes: number, now: Date): boolean {
  return f.phase === PROVISIONING_PHASE && now.getTime() - f.phaseChangedAt.getTime() > thresholdMinutes * 60_000;
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
 * says it all and the last report is only a last-known fact. A cluster still provisioning has no
 * agent yet, so no heartbeat is expected of it: it needs attention only once it has been
 * provisioning for longer than the threshold.
 */
export function clusterReasons(f: ReasonFacts, rules: ReasonRules, now: Date): ClusterReason[] {
  const reasons: ClusterReason[] = [];
  const fresh = heartbeatFresh(f, now, rules.notReadyThresholdSeconds);
  if (f.phase === PROVISIONING_PHASE) {
    if (isProvisioningOverdue(f, rules.provisioningThresholdMinutes, now))
      reasons.push({
        code: "provisioningOverdue",
        since: f.phaseChangedAt.toISOString(),
        thresholdMinutes: rules.provisioningThresholdMinutes,
      });
  } else if (f.lastHeartbeatAt === null) reasons.push({ code: "pending" });
  else if (!fresh) reasons.push({ code: "noHeartbeat", since: f.lastHeartbeatAt.toISOString() });
  else if (f.apiServerHealth === "down") reasons.push({ code: "apiServerDown" });
  else if (f.apiServerHealth === "degraded") reasons.push({ code: "degraded" });
  if (f.sameClusterAs?.length) reasons.push({ code: "sameCluster", clusters: [...f.sameClusterAs] });
  if (isFlapping(f.statusChangesLastHour, rules.flappingThresholdPerHour))
    reasons.push({ code: "flapping", changes: f.statusChangesLastHour });
  const missing = missingRequiredLabels(f.labels, rules.requiredLabels);
  if (missing.length) reasons.push({ code: "missingLabels", keys: missing });
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
export function matchesEnrollmentFilter(filter: EnrollmentFilter, f: { enrolledAt: Date | null }): boolean {
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

/** What sameClusterPeers reads of a cluster. */
export type UidFacts = { id: string; name: string; phase: string; clusterUid: string | null };

/**
 * For each cluster that shares its kube-system UID with another active one, those others, by
 * name: both registrations of one Kubernetes cluster are flagged, neither is refused. Clusters
 * in SAME_CLUSTER_IGNORED_PHASES neither flag nor are flagged (the SQL in cluster-list-sql.ts,
 * sameClusterIds and sameClusterPeers, says the same).
 */
export function sameClusterPeers(clusters: readonly UidFacts[]): Map<string, SameClusterRef[]> {
  const byUid = new Map<string, UidFacts[]>();
  for (const c of clusters) {
    if (!c.clusterUid || (SAME_CLUSTER_IGNORED_PHASES as readonly string[]).includes(c.phase)) continue;
    byUid.set(c.clusterUid, [...(byUid.get(c.clusterUid) ?? []), c]);
  }
  const peers = new Map<string, SameClusterRef[]>();
  for (const group of byUid.values()) {
    if (group.length < 2) continue;
    for (const c of group)
      peers.set(
        c.id,
        group
          .filter((o) => o.id !== c.id)
          .map((o) => ({ id: o.id, name: o.name }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1)),
      );
  }
  return peers;
}
