"use client";

import Link from "next/link";
import { useState, type ReactNode } from "react";
import type { DeregistrationAction } from "@/lib/domain/deregistration";
import {
  useDeregistration,
  useDeregistrationAction,
  podSamples,
  type Deregistration,
  type DeregistrationRequest,
} from "@/lib/client/clusters";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { DeregistrationStepper } from "@/components/clusters/deregister/deregistration-stepper";
import { ClusterCleanupPanel } from "@/components/clusters/deregister/cluster-cleanup-panel";
import { clusterCleanup } from "@/components/clusters/deregister/cluster-cleanup";
import { DeregistrationSummary } from "@/components/clusters/deregister/deregistration-summary";
import { DisconnectStatus } from "@/components/clusters/deregister/disconnect-status";
import { ForcedSkips } from "@/components/clusters/deregister/forced-skips";
import { InlineError } from "@/components/ui/inline-error";
import { ErrorState } from "@/components/ui/states";
import { LocalTime } from "@/components/ui/local-time";
import { ReasonDialog } from "@/components/ui/reason-dialog";
import { VerificationChecks } from "@/components/clusters/deregister/verification-checks";
import { WaitingFor } from "@/components/clusters/deregister/waiting-for";
import { WorkloadsPanel } from "@/components/clusters/deregister/workloads-panel";
import { WIZARD_DIALOGS, type WizardDialogKind } from "@/components/clusters/deregister/wizard-dialogs";
import { stepStates, type WizardStepKey, type WizardStepState } from "@/components/clusters/deregister/wizard-steps";
import Loading from "./loading";

function Done({ children }: { children: ReactNode }) {
  return <p className="text-sm text-slate-700 dark:text-slate-300">{children}</p>;
}

/** The wizard of a cluster's deregistration: its state comes with the page and is kept live here. */
export function DeregisterWizard({ clusterId, canAct }: { clusterId: string; canAct: boolean }) {
  const query = useDeregistration(clusterId);
  if (query.data)
    return (
      <Wizard
        clusterId={clusterId}
        canAct={canAct}
        d={query.data}
        updatedAt={query.dataUpdatedAt}
        refreshError={query.isRefetchError ? query.error.message : null}
      />
    );
  if (query.isError)
    return (
      <ErrorState title="Could not load the deregistration" message={query.error.message} onRetry={() => void query.refetch()} />
    );
  return <Loading />;
}

function Wizard({
  clusterId,
  canAct,
  d,
  updatedAt,
  refreshError,
}: {
  clusterId: string;
  canAct: boolean;
  d: Deregistration;
  /** when `d` was read: the pod samples' last point */
  updatedAt: number;
  /** why the last refresh failed, while the last known state is shown */
  refreshError: string | null;
}) {
  const samples = podSamples(d.workloads.history, d.workloads.pods, updatedAt);
  const action = useDeregistrationAction(clusterId);
  const [dialog, setDialog] = useState<WizardDialogKind | null>(null);
  const states = stepStates(d);
  const cleanup = clusterCleanup(d);
  const can = (a: DeregistrationAction) => canAct && d.availableActions.includes(a);
  const name = d.clusterName ?? clusterId;
  const forcedBy = (a: DeregistrationAction) => d.forced.find((f) => f.action === a);

  const open = (kind: WizardDialogKind) => {
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
            {d.workloads.atStart !== null ? ` (${d.workloads.atStart.toLocaleString("en-US")} pods at start)` : ""}.
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

      case "verify": {
        // Kept after removal and on every reload: the command depends only on what survives it.
        const cleanupPanel = cleanup ? <ClusterCleanupPanel cleanup={cleanup} clusterName={name} /> : null;
        if (!d.verification)
          return state === "current" ? (
            <div className="space-y-3">
              <WaitingFor text="The verification checks." />
              {cleanupPanel}
            </div>
          ) : null;
        return (
          <div className="space-y-3">
            <p
              role="status"
              className={`text-sm font-medium ${
                d.verification.passed ? "text-emerald-700 dark:text-emerald-400" : "text-rose-700 dark:text-rose-400"
              }`}
            >
              {d.verification.passed
                ? "All checks pass: the cluster is gone and the fleet keeps nothing of it but the tombstone and the audit trail."
                : "Some checks fail: see what is left behind below."}
            </p>
            <VerificationChecks verification={d.verification} />
            {cleanupPanel}
          </div>
        );
      }
    }
  }

  const shown = dialog ? WIZARD_DIALOGS[dialog] : null;
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
      {refreshError && (
        <p
          role="status"
          className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800 dark:bg-amber-950/50 dark:text-amber-300"
        >
          Could not refresh ({refreshError}); showing the last known state and retrying.
        </p>
      )}
      <div className="grid grid-cols-1 lg:grid-cols-[minmax(0,1fr)_20rem] items-start gap-6">
        <DeregistrationStepper states={states} render={body} />
        <aside aria-label="Deregistration summary" className="space-y-4">
          <DeregistrationSummary d={d} canAct={canAct} onCancel={can("cancel") ? () => open("cancel") : undefined} />
          {d.forced.length > 0 && <ForcedSkips forced={d.forced} />}
        </aside>
      </div>
      {shown && (
        <ReasonDialog
          title={shown.title(name)}
          description={shown.description(d)}
          reasonRequired={shown.request.force === true || shown.reasonRequired === true}
          confirmText={shown.typeName ? name : undefined}
          reasonHint={shown.reasonHint}
          confirmLabel={shown.confirmLabel}
          pendingLabel={shown.pendingLabel}
          dismissLabel={shown.dismissLabel}
          variant={shown.variant}
          pending={action.isPending}
          error={action.error}
          onConfirm={(reason) => run({ ...shown.request, reason })}
          onClose={() => setDialog(null)}
        />
      )}
    </>
  );
}
