"use client";

import { useState } from "react";
import { useRolloutAction, type Rollout } from "@/lib/client/rollouts";
import { Button } from "@/components/ui/button";
import { InlineError } from "@/components/ui/inline-error";
import { ReasonDialog } from "@/components/ui/reason-dialog";
import { ApproveStageDialog } from "./approve-stage-dialog";

/** Pause, resume, approve the next stage and abort, offered only when the rollout's state allows them. */
export function RolloutActions({ rollout }: { rollout: Rollout }) {
  const act = useRolloutAction(rollout.id);
  const [aborting, setAborting] = useState(false);
  const [approving, setApproving] = useState(false);
  const active = rollout.state === "Running" || rollout.state === "Paused" || rollout.state === "AwaitingApproval";
  const nextStage = rollout.stages[rollout.currentStage + 1];
  if (!active) return null;
  return (
    <div className="flex flex-col items-start gap-2 sm:items-end">
      <div className="flex flex-wrap gap-2">
        {rollout.state === "Running" && (
          <Button variant="secondary" disabled={act.isPending} onClick={() => act.mutate({ action: "pause" })}>
            {act.isPending && act.variables?.action === "pause" ? "Pausing…" : "Pause"}
          </Button>
        )}
        {rollout.state === "Paused" && (
          <Button disabled={act.isPending} onClick={() => act.mutate({ action: "resume" })}>
            {act.isPending && act.variables?.action === "resume" ? "Resuming…" : "Resume"}
          </Button>
        )}
        {rollout.state === "AwaitingApproval" && nextStage && (
          <Button
            onClick={() => {
              act.reset();
              setApproving(true);
            }}
          >
            Approve stage {nextStage.name}…
          </Button>
        )}
        <Button
          variant="danger"
          onClick={() => {
            act.reset();
            setAborting(true);
          }}
        >
          Abort…
        </Button>
      </div>
      {!aborting && !approving && act.error && <InlineError error={act.error} className="max-w-md" />}
      {approving && nextStage && (
        <ApproveStageDialog
          rollout={rollout}
          nextStage={nextStage.name}
          pending={act.isPending}
          error={act.error}
          onApprove={({ reason, override }) =>
            act.mutate(
              { action: "approve", ...(reason ? { reason } : {}), ...(override ? { override } : {}) },
              { onSuccess: () => setApproving(false) },
            )
          }
          onClose={() => setApproving(false)}
        />
      )}
      {aborting && (
        <ReasonDialog
          title={`Abort ${rollout.name}?`}
          description="Pending clusters are skipped and upgrades not yet picked up are withdrawn; clusters already upgraded stay on the new version. A rollout cannot be resumed after an abort."
          reasonRequired
          reasonHint="Kept with the rollout and in the audit log."
          confirmLabel="Abort rollout"
          dismissLabel="Keep running"
          pendingLabel="Aborting…"
          variant="danger"
          pending={act.isPending}
          error={act.error}
          onConfirm={(reason) => act.mutate({ action: "abort", reason }, { onSuccess: () => setAborting(false) })}
          onClose={() => setAborting(false)}
        />
      )}
    </div>
  );
}
