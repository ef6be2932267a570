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

export type EnrollmentFacts = {
  registeredAt: Date | null;
  phase: string;
  lastHeartbeatAt: Date | null;
  apiServerHealth: string | null;
  labels: Record<string, string>;
  groupCount: number;
  desiredPolicyRevision: string | null;
  appliedPolicyRevision: string | null;
  logsReporting: boolean | null;
  metricsReporting: boolean | null;
};

function item(key: ChecklistKey, label: string, state: ChecklistState, reason: string): ChecklistItem {
  return { key, label, ok: state === "pass", state, reason };
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
      ? item("registered", "Registered with a stable id", "pass", `registered ${f.registeredAt.toISOString()}`)
      : item("registered", "Registered with a stable id", "pending", "no agent has claimed this cluster yet"),
    !heard
      ? item("ready", "Ready", "pending", "no heartbeat yet")
      : health === "Ready"
        ? item("ready", "Ready", "pass", "heartbeats arriving and apiServer not down")
        : item("ready", "Ready", "fail", f.apiServerHealth === "down" ? "agent reports apiServer down" : "heartbeats stopped"),
    !heard
      ? item("heartbeat", "Heartbeat within threshold", "pending", "no heartbeat yet")
      : item(
          "heartbeat",
          "Heartbeat within threshold",
          ageS! <= thresholdSeconds ? "pass" : "fail",
          `last heartbeat ${formatAgo(ageS! * 1000)} (threshold ${formatDuration(thresholdSeconds * 1000)})`,
        ),
    missing.length || invalid.length
      ? item(
          "labels",
          "Required labels present and valid",
          "fail",
          [missing.length ? `missing: ${missing.join(", ")}` : "", invalid.length ? `invalid: ${invalid.join(", ")}` : ""]
            .filter(Boolean)
            .join("; "),
        )
      : item(
          "labels",
          "Required labels present and valid",
          "pass",
          required.length ? `has ${required.join(", ")}` : "no labels are required",
        ),
    f.groupCount > 0
      ? item("groups", "Member of at least one group", "pass", `member of ${f.groupCount} group${f.groupCount === 1 ? "" : "s"}`)
      : item("groups", "Member of at least one group", "fail", "no group's selector matches this cluster's labels"),
    f.desiredPolicyRevision === null
      ? item("policies", "Policies synced", "pass", "no policy targets this cluster's groups")
      : f.appliedPolicyRevision === f.desiredPolicyRevision
        ? item("policies", "Policies synced", "pass", `applied revision ${f.desiredPolicyRevision}`)
        : item(
            "policies",
            "Policies synced",
            heard ? "fail" : "pending",
            `applied ${f.appliedPolicyRevision ?? "nothing"}, desired ${f.desiredPolicyRevision}`,
          ),
    f.logsReporting === null
      ? item("logs", "Logs reporting", "pending", "no heartbeat yet")
      : item(
          "logs",
          "Logs reporting",
          f.logsReporting ? "pass" : "fail",
          f.logsReporting ? "agent reports logs flowing" : "agent reports logs not flowing",
        ),
    f.metricsReporting === null
      ? item("metrics", "Metrics reporting", "pending", "no heartbeat yet")
      : item(
          "metrics",
          "Metrics reporting",
          f.metricsReporting ? "pass" : "fail",
          f.metricsReporting ? "agent reports metrics flowing" : "agent reports metrics not flowing",
        ),
  ];
}
