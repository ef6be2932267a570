import { missingRequiredLabels, labelKeyProblem, labelValueProblem } from "./labels";
import { healthStatus } from "./status";
import { formatAgo, formatDuration } from "./time-format";

// The enrollment checklist: a cluster is enrolled only when every item passes. A pure function
// of stored facts, so the console, the API and the change gate agree.

/** The checklist's items, in the order enrollmentChecklist lists them. */
export const CHECKLIST_KEYS = ["registered", "ready", "heartbeat", "labels", "groups", "policies", "logs", "metrics"] as const;
export type ChecklistKey = (typeof CHECKLIST_KEYS)[number];

export type ChecklistState = "pass" | "fail" | "pending";
export type ChecklistItem = { key: ChecklistKey; label: string; ok: boolean; state: ChecklistState; reason: string };

/** Each item's name, as the checklist, the list's enrollment column and the Overview show it. */
export const CHECKLIST_LABELS: Record<ChecklistKey, string> = {
  registered: "Registered with a stable id",
  ready: "Ready",
  heartbeat: "Heartbeat within threshold",
  labels: "Required labels present and valid",
  groups: "Member of at least one group",
  policies: "Policies synced",
  logs: "Logs reporting",
  metrics: "Metrics reporting",
};

/**
 * Items that cannot pass while another does not, for the same cause: a cluster with no recent
 * heartbeat is not Ready either. Such a cluster is blocked on the cause alone (the Overview's
 * counts, the list's "blocked on" filter and column), so one NotReady cluster is not counted twice;
 * "Ready" then counts the clusters that heartbeat but are not Ready (apiServer down).
 */
export const BLOCKED_ONLY_WITHOUT: Partial<Record<ChecklistKey, ChecklistKey>> = { ready: "heartbeat" };

/** The items a cluster is blocked on, of those not passing: less the ones another of them explains. */
export function blockingItems(notPassing: readonly ChecklistKey[]): ChecklistKey[] {
  return notPassing.filter((key) => {
    const cause = BLOCKED_ONLY_WITHOUT[key];
    return !cause || !notPassing.includes(cause);
  });
}

export type EnrollmentFacts = {
  registeredAt: Date | null;
  phase: string;
  lastHeartbeatAt: Date | null;
  apiServerHealth: string | null;
  labels: Record<string, string>;
  /** the groups whose selector matches this cluster */
  groupCount: number;
  /**
   * the groups in the fleet: with none, group membership is not applicable (a fresh install's
   * clusters enroll); once one exists every cluster must belong to one
   */
  fleetGroupCount: number;
  desiredPolicyRevision: string | null;
  appliedPolicyRevision: string | null;
  logsReporting: boolean | null;
  metricsReporting: boolean | null;
};

function item(key: ChecklistKey, state: ChecklistState, reason: string): ChecklistItem {
  return { key, label: CHECKLIST_LABELS[key], ok: state === "pass", state, reason };
}

export function enrollmentChecklist(
  f: EnrollmentFacts,
  required: readonly string[],
  now: Date,
  thresholdSeconds: number,
): ChecklistItem[] {
  const heard = f.lastHeartbeatAt !== null;
  const health = healthStatus(f, now, thresholdSeconds);
  const ageS = heard ? Math.round((now.getTime() - f.lastHeartbeatAt!.getTime()) / 1000) : null;
  const missing = missingRequiredLabels(f.labels, required);
  const invalid = Object.entries(f.labels)
    .filter(([k, v]) => labelKeyProblem(k) || labelValueProblem(v))
    .map(([k]) => k);
  return [
    f.registeredAt
      ? item("registered", "pass", `registered ${f.registeredAt.toISOString()}`)
      : item("registered", "pending", "no agent has claimed this cluster yet"),
    !heard
      ? item("ready", "pending", "no heartbeat yet")
      : health === "Ready"
        ? item("ready", "pass", "heartbeats arriving and apiServer not down")
        : item("ready", "fail", f.apiServerHealth === "down" ? "agent reports apiServer down" : "heartbeats stopped"),
    !heard
      ? item("heartbeat", "pending", "no heartbeat yet")
      : item(
          "heartbeat",
          ageS! <= thresholdSeconds ? "pass" : "fail",
          `last heartbeat ${formatAgo(ageS! * 1000)} (threshold ${formatDuration(thresholdSeconds * 1000)})`,
        ),
    missing.length || invalid.length
      ? item(
          "labels",
          "fail",
          [missing.length ? `missing: ${missing.join(", ")}` : "", invalid.length ? `invalid: ${invalid.join(", ")}` : ""]
            .filter(Boolean)
            .join("; "),
        )
      : item("labels", "pass", required.length ? `has ${required.join(", ")}` : "no labels are required"),
    f.fleetGroupCount === 0
      ? item("groups", "pass", "not applicable: the fleet has no groups yet")
      : f.groupCount > 0
        ? item("groups", "pass", `member of ${f.groupCount} group${f.groupCount === 1 ? "" : "s"}`)
        : item("groups", "fail", "no group's selector matches this cluster's labels"),
    f.desiredPolicyRevision === null
      ? item("policies", "pass", "no policy targets this cluster's groups")
      : f.appliedPolicyRevision === f.desiredPolicyRevision
        ? item("policies", "pass", `applied revision ${f.desiredPolicyRevision}`)
        : item(
            "policies",
            heard ? "fail" : "pending",
            `applied ${f.appliedPolicyRevision ?? "nothing"}, desired ${f.desiredPolicyRevision}`,
          ),
    f.logsReporting === null
      ? item("logs", "pending", heard ? "not yet read by the agent" : "no heartbeat yet")
      : item(
          "logs",
          f.logsReporting ? "pass" : "fail",
          f.logsReporting ? "agent reports logs flowing" : "agent reports logs not flowing",
        ),
    f.metricsReporting === null
      ? item("metrics", "pending", heard ? "not yet read by the agent" : "no heartbeat yet")
      : item(
          "metrics",
          f.metricsReporting ? "pass" : "fail",
          f.metricsReporting ? "agent reports metrics flowing" : "agent reports metrics not flowing",
        ),
  ];
}
