// The drain-then-deregister wizard as a pure state machine: which action is allowed in which
// step, what each step waits for, and when a wait may only be skipped with force and a reason.
// The server persists the state (lib/server/lifecycle/deregistration.ts); this decides.

export const DEREGISTRATION_STEPS = ["draining", "workloads-moved", "disconnecting", "removed", "cancelled"] as const;
export type DeregistrationStep = (typeof DEREGISTRATION_STEPS)[number];
export const DEREGISTRATION_ACTIONS = ["start", "confirm-workloads", "disconnect", "remove", "cancel"] as const;
export type DeregistrationAction = (typeof DEREGISTRATION_ACTIONS)[number];

export type WizardFacts = {
  /** null when no wizard has run (or the last one was cancelled and the cluster is Active again) */
  step: DeregistrationStep | null;
  /** pods the agent last reported (null: never reported) */
  pods: number | null;
  disconnectAcked: boolean;
  /** seconds since the disconnect directive was sent */
  disconnectWaitedSeconds: number | null;
  /** how long the agent has to acknowledge `disconnect` before removal may be forced (a setting) */
  disconnectTimeoutSeconds: number;
};

export type Decision =
  | { ok: true; next: DeregistrationStep; forced: boolean }
  | { ok: false; code: "invalid_transition" | "invalid_request"; message: string };

const reject = (message: string): Decision => ({ ok: false, code: "invalid_transition", message });

export function decide(facts: WizardFacts, action: DeregistrationAction, force: boolean, reason: string | undefined): Decision {
  if (force && !reason?.trim()) return { ok: false, code: "invalid_request", message: "force needs a reason." };
  const { step } = facts;
  switch (action) {
    case "start":
      if (step !== null && step !== "cancelled") return reject(`Deregistration is already under way (step ${step}).`);
      return { ok: true, next: "draining", forced: false };
    case "confirm-workloads":
      if (step !== "draining")
        return reject(`confirm-workloads comes after start, while draining (now: ${step ?? "not started"}).`);
      if (facts.pods === 0) return { ok: true, next: "workloads-moved", forced: false };
      if (!force) {
        return reject(
          `The agent still reports ${facts.pods ?? "unknown"} pods; wait for zero, or confirm it is safe with force and a reason.`,
        );
      }
      return { ok: true, next: "workloads-moved", forced: true };
    case "disconnect":
      if (step !== "workloads-moved")
        return reject(`disconnect comes after the workloads have moved (now: ${step ?? "not started"}).`);
      return { ok: true, next: "disconnecting", forced: false };
    case "remove":
      if (step !== "disconnecting") return reject(`remove comes after disconnect (now: ${step ?? "not started"}).`);
      // Removal cannot be undone: whoever does it says why, for the audit log and the tombstone.
      if (!reason?.trim())
        return { ok: false, code: "invalid_request", message: "Removing a cluster needs a reason; it is kept in the audit log." };
      if (facts.disconnectAcked) return { ok: true, next: "removed", forced: false };
      if (!force)
        return reject("The agent has not acknowledged disconnect yet; wait, or after the timeout force it with a reason.");
      if ((facts.disconnectWaitedSeconds ?? 0) < facts.disconnectTimeoutSeconds) {
        return reject(
          `Forcing removal is allowed ${facts.disconnectTimeoutSeconds}s after disconnect was sent (${Math.floor(facts.disconnectWaitedSeconds ?? 0)}s so far).`,
        );
      }
      return { ok: true, next: "removed", forced: true };
    case "cancel":
      if (step === "draining" || step === "workloads-moved" || step === "disconnecting")
        return { ok: true, next: "cancelled", forced: false };
      return reject(
        step === "removed" ? "The cluster is already removed; there is nothing to cancel." : "No deregistration is under way.",
      );
  }
}

/** What the current step waits for, in words for the wizard. */
export function waitingFor(facts: WizardFacts): string | null {
  switch (facts.step) {
    case "draining":
      return facts.pods === 0
        ? "Workloads have moved (0 pods): confirm to continue."
        : facts.pods === null
          ? "Workloads to move off the cluster (the agent has not reported its pods yet)."
          : `Workloads to move off the cluster (agent reports ${facts.pods} pods).`;
    case "workloads-moved":
      return "An operator to disconnect the agent.";
    case "disconnecting":
      if (facts.disconnectAcked) return "Agent acknowledged disconnect: remove the cluster record.";
      return (facts.disconnectWaitedSeconds ?? 0) >= facts.disconnectTimeoutSeconds
        ? "The agent has not acknowledged disconnect; removal may be forced with a reason."
        : "The agent to acknowledge the disconnect directive.";
    default:
      return null;
  }
}

/** The phase a cluster is in at each step (lifecycle phases override status). */
export function phaseFor(step: DeregistrationStep): "Draining" | "Deregistration" | "Active" | null {
  if (step === "draining" || step === "workloads-moved") return "Draining";
  if (step === "disconnecting") return "Deregistration";
  if (step === "cancelled") return "Active";
  return null;
}

/** A drain's pod count is recorded at least this often, so its curve reaches the present. */
export const DRAIN_SAMPLE_KEEPALIVE_MS = 60_000;

/**
 * Whether the pods a draining cluster reports now are a new point of its drain history: the first
 * since the drain started, a changed count, or the same count a keep-alive later.
 */
export function isNewDrainSample(
  last: { at: Date; pods: number } | null,
  pods: number | null,
  now: Date,
  startedAt: Date,
): pods is number {
  if (pods === null) return false;
  if (!last || last.at < startedAt) return true;
  return last.pods !== pods || now.getTime() - last.at.getTime() >= DRAIN_SAMPLE_KEEPALIVE_MS;
}
