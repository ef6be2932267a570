// Cluster status as a pure function of stored facts (PROTOCOL.md, Status), so every instance
// of the app computes the same answer.

export const HEALTH_STATUSES = ["Pending", "Ready", "NotReady"] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];
export type ClusterStatus = HealthStatus | "Draining" | "Deregistering" | "Provisioning";

export const LIFECYCLE_PHASES = ["Provisioning", "Registration", "Active", "Upgrading", "Draining", "Deregistration"] as const;
export type Phase = (typeof LIFECYCLE_PHASES)[number];

export type StatusFacts = {
  phase: string;
  lastHeartbeatAt: Date | null;
  apiServerHealth: string | null;
};

/** Ready / NotReady / Pending from heartbeat facts alone (lifecycle phases ignored). */
export function healthStatus(f: StatusFacts, now: Date, thresholdSeconds: number): HealthStatus {
  if (!f.lastHeartbeatAt) return "Pending";
  const fresh = now.getTime() - f.lastHeartbeatAt.getTime() <= thresholdSeconds * 1000;
  return fresh && f.apiServerHealth !== "down" ? "Ready" : "NotReady";
}

/** The status shown and served: lifecycle states override heartbeat health. */
export function clusterStatus(f: StatusFacts, now: Date, thresholdSeconds: number): ClusterStatus {
  if (f.phase === "Draining") return "Draining";
  if (f.phase === "Deregistration") return "Deregistering";
  if (f.phase === "Provisioning") return "Provisioning";
  return healthStatus(f, now, thresholdSeconds);
}

/** Why a cluster moved between health statuses, in words for the event log. */
export function transitionReason(from: HealthStatus, to: HealthStatus, f: StatusFacts, thresholdSeconds: number): string {
  if (to === "Ready") return from === "Pending" ? "first heartbeat" : "recovered: heartbeats arriving and apiServer not down";
  if (to === "NotReady") {
    if (f.apiServerHealth === "down" && f.lastHeartbeatAt) return "agent reports apiServer down";
    return `no heartbeat for more than ${thresholdSeconds}s (threshold passed)`;
  }
  return "waiting for the first heartbeat";
}
