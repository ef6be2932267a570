import type { Deregistration } from "@/lib/client/clusters";

// The wizard's five steps as people see them, derived from the server's state machine step
// (which has no "verify" step: verification is what "removed" shows). Pure, no React.

export const WIZARD_STEPS = [
  {
    key: "drain",
    title: "Start drain",
    description: "The cluster turns Draining, new policy revisions stop and the agent is told to drain.",
  },
  {
    key: "workloads",
    title: "Workloads moved",
    description: "Wait for the agent to report 0 pods, or confirm with a reason that it is safe to go on.",
  },
  {
    key: "disconnect",
    title: "Disconnect the agent",
    description: "The agent acknowledges, sends a final heartbeat and deletes its key and certificate.",
  },
  {
    key: "remove",
    title: "Remove the cluster",
    description:
      "The record, labels, node pools and pending directives are deleted and every certificate is refused. The audit trail and a tombstone stay.",
  },
  {
    key: "verify",
    title: "Verify nothing is left",
    description: "No heartbeat accepted since, certificates refused, nothing references the cluster.",
  },
] as const;

export type WizardStepKey = (typeof WIZARD_STEPS)[number]["key"];
/** `forced`: done, but its wait was skipped by an operator with a reason. */
export type WizardStepState = "done" | "forced" | "current" | "upcoming" | "failed";

export function stepStates(
  d: Pick<Deregistration, "step" | "disconnect" | "forced" | "verification">,
): Record<WizardStepKey, WizardStepState> {
  const forcedActions = new Set(d.forced.map((f) => f.action));
  const doneOr = (action: string): WizardStepState => (forcedActions.has(action) ? "forced" : "done");
  switch (d.step) {
    case "draining":
      return { drain: "done", workloads: "current", disconnect: "upcoming", remove: "upcoming", verify: "upcoming" };
    case "workloads-moved":
      return {
        drain: "done",
        workloads: doneOr("confirm-workloads"),
        disconnect: "current",
        remove: "upcoming",
        verify: "upcoming",
      };
    case "disconnecting":
      return {
        drain: "done",
        workloads: doneOr("confirm-workloads"),
        disconnect: d.disconnect?.acknowledged ? "done" : "current",
        remove: d.disconnect?.acknowledged ? "current" : "upcoming",
        verify: "upcoming",
      };
    case "removed":
      return {
        drain: "done",
        workloads: doneOr("confirm-workloads"),
        // A forced removal skipped the wait for the agent's acknowledgement.
        disconnect: doneOr("remove"),
        remove: "done",
        verify: !d.verification ? "current" : d.verification.passed ? "done" : "failed",
      };
    default:
      // Not started, or cancelled (the cluster is Active again and may be drained anew).
      return { drain: "current", workloads: "upcoming", disconnect: "upcoming", remove: "upcoming", verify: "upcoming" };
  }
}

/** Whole seconds until a forced removal is allowed (0: allowed now), or null when not disconnecting. */
export function secondsUntilForceAllowed(d: Pick<Deregistration, "disconnect">, now: number): number | null {
  if (!d.disconnect || d.disconnect.acknowledged) return null;
  const due = Date.parse(d.disconnect.sentAt) + d.disconnect.timeoutSeconds * 1000;
  return Math.max(0, Math.ceil((due - now) / 1000));
}
