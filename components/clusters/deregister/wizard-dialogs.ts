import type { Deregistration, DeregistrationRequest } from "@/lib/client/clusters";

// The wizard's confirmations as data, one row per button that opens one; the wizard renders the
// open row through one ReasonDialog. Pure, no React.

export type WizardDialogKind = "start" | "force-workloads" | "disconnect" | "remove" | "force-remove" | "cancel";

export type WizardDialog = {
  title: (name: string) => string;
  description: (d: Pick<Deregistration, "step" | "workloads">) => string;
  /** what is sent on confirm, with the reason; a forced skip needs a reason (the server refuses one without) */
  request: Omit<DeregistrationRequest, "reason">;
  reasonHint?: string;
  /** a reason is needed even without force (removal: the server refuses one without) */
  reasonRequired?: boolean;
  /** the cluster's name must be typed to confirm (what cannot be undone) */
  typeName?: boolean;
  confirmLabel: string;
  pendingLabel: string;
  dismissLabel?: string;
  variant?: "danger";
};

export const WIZARD_DIALOGS: Record<WizardDialogKind, WizardDialog> = {
  start: {
    title: (name) => `Start draining ${name}?`,
    description: () =>
      "The cluster turns Draining: it gets no new policy revisions and its agent is told to move workloads off. You can cancel until the record is removed.",
    request: { action: "start" },
    confirmLabel: "Start drain",
    pendingLabel: "Starting…",
  },
  "force-workloads": {
    title: () => "Continue with pods still running?",
    description: (d) =>
      `The agent still reports ${d.workloads.pods ?? "an unknown number of"} pods. Continue only if they are safe to lose or already run elsewhere; the reason is audited.`,
    request: { action: "confirm-workloads", force: true },
    reasonHint: "For example: “stateless; traffic already moved to prod-eu-2”.",
    confirmLabel: "Skip the wait",
    pendingLabel: "Continuing…",
  },
  disconnect: {
    title: (name) => `Disconnect the agent of ${name}?`,
    description: () =>
      "The agent acknowledges, sends a final heartbeat, deletes its key and certificate and stops. Cancelling after this will not bring the agent back.",
    request: { action: "disconnect" },
    confirmLabel: "Disconnect agent",
    pendingLabel: "Disconnecting…",
  },
  remove: {
    title: (name) => `Remove ${name} from the fleet?`,
    description: () =>
      "The cluster record, its labels, node pools and pending directives are deleted and its certificates refused for good. This cannot be undone; the audit trail and a tombstone stay.",
    request: { action: "remove" },
    reasonRequired: true,
    typeName: true,
    reasonHint: "For example: “decommissioned with the eu-west-1 migration”.",
    confirmLabel: "Remove cluster",
    pendingLabel: "Removing…",
    variant: "danger",
  },
  "force-remove": {
    title: (name) => `Remove ${name} without the agent's acknowledgement?`,
    description: () =>
      "The agent never acknowledged disconnect; it may still hold credentials (they will be refused). The record is deleted for good and the reason is audited.",
    request: { action: "remove", force: true },
    typeName: true,
    reasonHint: "For example: “cluster already destroyed by Terraform”.",
    confirmLabel: "Force removal",
    pendingLabel: "Removing…",
    variant: "danger",
  },
  cancel: {
    title: () => "Cancel this deregistration?",
    description: (d) =>
      d.step === "disconnecting"
        ? "The cluster returns to Active. The agent was already told to disconnect: if it did, it must be registered again with a new token."
        : "The cluster returns to Active and its agent is told to resume; drained workloads may come back.",
    request: { action: "cancel" },
    confirmLabel: "Cancel deregistration",
    dismissLabel: "Keep going",
    pendingLabel: "Cancelling…",
    variant: "danger",
  },
};
