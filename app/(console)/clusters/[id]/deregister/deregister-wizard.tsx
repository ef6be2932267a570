"use client";

import Link from "next/link";
import { useState, type ReactNode } from "react";
import type { DeregistrationAction } from "@/lib/domain/deregistration";
import {
  useDeregistration,
  useDeregistrationAction,
  usePodSamples,
  type Deregistration,
  type DeregistrationRequest,
} from "@/lib/client/clusters";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { DeregistrationStepper } from "@/components/clusters/deregister/deregistration-stepper";
import { DeregistrationSummary } from "@/components/clusters/deregister/deregistration-summary";
import { DisconnectStatus } from "@/components/clusters/deregister/disconnect-status";
import { ForcedSkips } from "@/components/clusters/deregister/forced-skips";
import { InlineError } from "@/components/ui/inline-error";
import { LocalTime } from "@/components/ui/local-time";
import { ReasonDialog } from "@/components/ui/reason-dialog";
import { VerificationChecks } from "@/components/clusters/deregister/verification-checks";
import { WaitingFor } from "@/components/clusters/deregister/waiting-for";
import { WorkloadsPanel } from "@/components/clusters/deregister/workloads-panel";
import { stepStates, type WizardStepKey, type WizardStepState } from "@/components/clusters/deregister/wizard-steps";

type DialogKind = "start" | "force-workloads" | "disconnect" | "remove" | "force-remove" | "cancel";

function Done({ children }: { children: ReactNode }) {
  return <p className="text-sm text-slate-700 dark:text-slate-300">{children}</p>;
}

export function DeregisterWizard({
  clusterId,
  initial,
  canAct,
}: {
  clusterId: string;
  initial: Deregistration;
  canAct: boolean;
}) {
  const query = useDeregistration(clusterId, initial);
  const d = query.data;
  const samples = usePodSamples(d.workloads.pods, query.dataUpdatedAt);
  const action = useDeregistrationAction(clusterId);
  const [dialog, setDialog] = useState<DialogKind | null>(null);
  const states = stepStates(d);
  const can = (a: DeregistrationAction) => canAct && d.availableActions.includes(a);
  const name = d.clusterName ?? clusterId;
  const forcedBy = (a: DeregistrationAction) => d.forced.find((f) => f.action === a);

  const open = (kind: DialogKind) => {
    action.reset();
    setDialog(kind);
  };
  const run = (body: DeregistrationRequest) => action.mutate(body, { onSuccess: () => setDialog(null) });
  // Errors of actions taken from a dialog show in it; the rest show at the current step.
  const inlineError = !dialog && action.error ? <InlineError error={action.error} className="mt-3" /> : null;

  function body(key: WizardStepKey, state: WizardStepState): ReactNode {
    switch (key) {
      case "drain":
        if (state === "current")
          return (
            <>
              {d.step === "cancelled" && d.finishedAt && (
                <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
                  The last deregistration was cancelled at <LocalTime iso={d.finishedAt} />; the cluster is Active again.
                </p>
              )}
              {can("start") && (
                <Button variant="primary" onClick={() => open("start")}>
                  Start drain…
                </Button>
              )}
              {inlineError}
            </>
          );
        return d.startedAt ? (
          <Done>
            Started at <LocalTime iso={d.startedAt} />
            {d.startedBy ? ` by ${d.startedBy}` : ""}.
          </Done>
        ) : null;

      case "workloads": {
        if (state === "current")
          return (
            <div className="space-y-3">
              <WaitingFor text={d.waitingFor} />
              <WorkloadsPanel pods={d.workloads.pods} atStart={d.workloads.atStart} samples={samples} />
              {(can("confirm-workloads") || inlineError) && (
                <div>
                  {can("confirm-workloads") &&
                    (d.workloads.pods === 0 ? (
                      <Button disabled={action.isPending} onClick={() => run({ action: "confirm-workloads" })}>
                        {action.isPending ? "Continuing…" : "Continue"}
                      </Button>
                    ) : (
                      <div className="flex items-center gap-3">
                        <Button variant="secondary" onClick={() => open("force-workloads")}>
                          Confirm it is safe…
                        </Button>
                        <span className="text-xs text-slate-500 dark:text-slate-400">
                          Skips the wait for 0 pods; needs a reason and is audited.
                        </span>
                      </div>
                    ))}
                  {inlineError}
                </div>
              )}
            </div>
          );
        if (state === "upcoming") return null;
        const forced = forcedBy("confirm-workloads");
        return forced ? (
          <Done>
            Confirmed safe by {forced.by} at <LocalTime iso={forced.at} />: “{forced.reason}”
          </Done>
        ) : (
          <Done>
            All workloads moved off
            {d.workloads.atStart !== null ? ` (${d.workloads.atStart.toLocaleString()} pods at start)` : ""}.
          </Done>
        );
      }

      case "disconnect": {
        if (state === "current")
          return (
            <div className="space-y-3">
              <WaitingFor text={d.waitingFor} />
              {d.disconnect && <DisconnectStatus disconnect={d.disconnect} />}
              {can("disconnect") && (
                <Button onClick={() => open("disconnect")} className="mr-3">
                  Disconnect agent…
                </Button>
              )}
              {can("remove") && !d.disconnect?.acknowledged && (
                <Button variant="danger" onClick={() => open("force-remove")}>
                  Force removal…
                </Button>
              )}
              {inlineError}
            </div>
          );
        if (state === "upcoming") return null;
        const forced = forcedBy("remove");
        if (forced)
          return (
            <Done>
              Acknowledgement skipped by {forced.by} at <LocalTime iso={forced.at} />: “{forced.reason}”
            </Done>
          );
        if (d.disconnect?.acknowledgedAt)
          return (
            <Done>
              Agent acknowledged at <LocalTime iso={d.disconnect.acknowledgedAt} /> (sent <LocalTime iso={d.disconnect.sentAt} />
              ).
            </Done>
          );
        // After removal the directive is gone with the cluster; an unforced removal means it was acknowledged.
        return d.step === "removed" ? <Done>The agent acknowledged and deleted its credentials.</Done> : null;
      }

      case "remove":
        if (state === "current")
          return (
            <div className="space-y-3">
              <WaitingFor text={d.waitingFor} />
              {d.disconnect && <DisconnectStatus disconnect={d.disconnect} />}
              {can("remove") && (
                <Button variant="danger" onClick={() => open("remove")}>
                  Remove cluster…
                </Button>
              )}
              {inlineError}
            </div>
          );
        return state === "done" && d.finishedAt ? (
          <Done>
            Removed at <LocalTime iso={d.finishedAt} />.
          </Done>
        ) : null;

      case "verify":
        if (!d.verification) return state === "current" ? <WaitingFor text="The verification checks." /> : null;
        return (
          <div className="space-y-3">
            <p
              role="status"
              className={`text-sm font-medium ${
                d.verification.passed ? "text-emerald-700 dark:text-emerald-400" : "text-rose-700 dark:text-rose-400"
              }`}
            >
              {d.verification.passed
                ? "All checks pass: the cluster is gone and nothing is left behind."
                : "Some checks fail: see what is left behind below."}
            </p>
            <VerificationChecks verification={d.verification} />
          </div>
        );
    }
  }

  const dialogs: Record<DialogKind, () => ReactNode> = {
    start: () => (
      <ReasonDialog
        title={`Start draining ${name}?`}
        description="The cluster turns Draining: it gets no new policy revisions and its agent is told to move workloads off. You can cancel until the record is removed."
        reasonRequired={false}
        confirmLabel="Start drain"
        pendingLabel="Starting…"
        pending={action.isPending}
        error={action.error}
        onConfirm={(reason) => run({ action: "start", reason })}
        onClose={() => setDialog(null)}
      />
    ),
    "force-workloads": () => (
      <ReasonDialog
        title="Continue with pods still running?"
        description={`The agent still reports ${d.workloads.pods ?? "an unknown number of"} pods. Continue only if they are safe to lose or already run elsewhere; the reason is audited.`}
        reasonRequired
        reasonHint="For example: “stateless; traffic already moved to prod-eu-2”."
        confirmLabel="Skip the wait"
        pendingLabel="Continuing…"
        pending={action.isPending}
        error={action.error}
        onConfirm={(reason) => run({ action: "confirm-workloads", force: true, reason })}
        onClose={() => setDialog(null)}
      />
    ),
    disconnect: () => (
      <ReasonDialog
        title={`Disconnect the agent of ${name}?`}
        description="The agent acknowledges, sends a final heartbeat, deletes its key and certificate and stops. Cancelling after this will not bring the agent back."
        reasonRequired={false}
        confirmLabel="Disconnect agent"
        pendingLabel="Disconnecting…"
        pending={action.isPending}
        error={action.error}
        onConfirm={(reason) => run({ action: "disconnect", reason })}
        onClose={() => setDialog(null)}
      />
    ),
    remove: () => (
      <ReasonDialog
        title={`Remove ${name} from the fleet?`}
        description="The cluster record, its labels, node pools and pending directives are deleted and its certificates refused for good. This cannot be undone; the audit trail and a tombstone stay."
        reasonRequired={false}
        confirmLabel="Remove cluster"
        pendingLabel="Removing…"
        variant="danger"
        pending={action.isPending}
        error={action.error}
        onConfirm={(reason) => run({ action: "remove", reason })}
        onClose={() => setDialog(null)}
      />
    ),
    "force-remove": () => (
      <ReasonDialog
        title={`Remove ${name} without the agent's acknowledgement?`}
        description="The agent never acknowledged disconnect; it may still hold credentials (they will be refused). The record is deleted for good and the reason is audited."
        reasonRequired
        reasonHint="For example: “cluster already destroyed by Terraform”."
        confirmLabel="Force removal"
        pendingLabel="Removing…"
        variant="danger"
        pending={action.isPending}
        error={action.error}
        onConfirm={(reason) => run({ action: "remove", force: true, reason })}
        onClose={() => setDialog(null)}
      />
    ),
    cancel: () => (
      <ReasonDialog
        title="Cancel this deregistration?"
        description={
          d.step === "disconnecting"
            ? "The cluster returns to Active. The agent was already told to disconnect: if it did, it must be registered again with a new token."
            : "The cluster returns to Active and its agent is told to resume; drained workloads may come back."
        }
        reasonRequired={false}
        confirmLabel="Cancel deregistration"
        dismissLabel="Keep going"
        pendingLabel="Cancelling…"
        variant="danger"
        pending={action.isPending}
        error={action.error}
        onConfirm={(reason) => run({ action: "cancel", reason })}
        onClose={() => setDialog(null)}
      />
    ),
  };

  const removed = d.step === "removed";
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link
          href={removed ? "/clusters" : `/clusters/${encodeURIComponent(clusterId)}`}
          className="text-sky-700 hover:underline dark:text-sky-400"
        >
          ← {removed ? "Clusters" : name}
        </Link>
      </nav>
      <PageHeader
        title={`Deregister ${name}`}
        description="Drain, disconnect, remove and verify, one step at a time. Every step is audited and available through the API."
      />
      {query.isRefetchError && (
        <p
          role="status"
          className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800 dark:bg-amber-950/50 dark:text-amber-300"
        >
          Could not refresh ({query.error.message}); showing the last known state and retrying.
        </p>
      )}
      <div className="grid grid-cols-[minmax(0,1fr)_20rem] items-start gap-6">
        <DeregistrationStepper states={states} render={body} />
        <aside className="space-y-4">
          <DeregistrationSummary d={d} canAct={canAct} onCancel={can("cancel") ? () => open("cancel") : undefined} />
          {d.forced.length > 0 && <ForcedSkips forced={d.forced} />}
        </aside>
      </div>
      {dialog && dialogs[dialog]()}
    </>
  );
}
