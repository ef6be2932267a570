"use client";

import type { Rollout } from "@/lib/client/rollouts";
import { Dialog } from "@/components/ui/dialog";
import { ReasonForm } from "@/components/ui/reason-dialog";
import { RelativeTime } from "@/components/ui/relative-time";
import { StatusBadge } from "@/components/ui/status-badge";

type Evidence = NonNullable<Rollout["evidence"]>;

/**
 * Approving the next stage shows the finished stage's evidence first: each of its clusters with
 * its status, version and Ready since. While an upgraded one is not Ready on the target the server
 * refuses the approval; the dialog says why and offers an override that needs a reason.
 */
export function ApproveStageDialog({
  rollout,
  nextStage,
  pending,
  error,
  onApprove,
  onClose,
}: {
  rollout: Rollout;
  nextStage: string;
  pending: boolean;
  error: unknown;
  onApprove: (input: { reason: string | undefined; override: boolean }) => void;
  onClose: () => void;
}) {
  const evidence = rollout.evidence;
  const finished = rollout.stages[rollout.currentStage]?.name ?? "this stage";
  const problem = evidence?.problem ?? null;
  return (
    <Dialog
      title={`Approve stage ${nextStage}?`}
      description={
        <>
          Stage <strong>{finished}</strong> is done. Each cluster it upgraded must be Ready on{" "}
          <code className="font-mono">{rollout.targetVersion}</code> before <strong>{nextStage}</strong> starts.
        </>
      }
      onClose={onClose}
    >
      <div className="space-y-4">
        {evidence ? <EvidenceList evidence={evidence} /> : null}
        {problem && (
          <p
            role="alert"
            data-testid="approval-refused"
            className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-800 dark:bg-rose-950/50 dark:text-rose-300"
          >
            {problem} Approving now is an override: say why; it is audited as one.
          </p>
        )}
        <ReasonForm
          reasonRequired={!!problem}
          reasonLabel={problem ? "Reason for the override" : "Reason"}
          reasonHint="Kept in the audit log."
          confirmLabel={problem ? "Override and approve" : `Approve stage ${nextStage}`}
          pendingLabel="Approving…"
          variant={problem ? "danger" : "primary"}
          pending={pending}
          error={error}
          onConfirm={(reason) => onApprove({ reason, override: !!problem })}
          onClose={onClose}
        />
      </div>
    </Dialog>
  );
}

function EvidenceList({ evidence }: { evidence: Evidence }) {
  return (
    <div className="max-h-64 overflow-y-auto rounded-md border border-slate-200 dark:border-slate-700">
      <table className="w-full text-left text-sm" data-testid="stage-evidence">
        <caption className="sr-only">The finished stage&apos;s clusters</caption>
        <thead className="bg-slate-50 text-xs text-slate-600 dark:bg-slate-800/50 dark:text-slate-400">
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">
              Cluster
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Status
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Version
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Ready since
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {evidence.canaries.map((c) => (
            <tr key={c.clusterId} data-canary={c.name ?? c.clusterId}>
              <th scope="row" className="px-3 py-2 font-medium">
                <span className="block max-w-36 truncate" title={c.name ?? c.clusterId}>
                  {c.name ?? c.clusterId}
                </span>
                {!c.judged && (
                  <span className="text-xs font-normal text-slate-500 dark:text-slate-400">{c.state}, not judged</span>
                )}
                {c.problem && <span className="block text-xs font-normal text-rose-700 dark:text-rose-400">{c.problem}</span>}
              </th>
              <td className="px-3 py-2">{c.health ? <StatusBadge status={c.health} /> : "removed"}</td>
              <td className="px-3 py-2 font-mono text-xs">{c.agentVersion ?? "—"}</td>
              <td className="px-3 py-2 text-xs whitespace-nowrap">
                {c.readySince ? <RelativeTime iso={c.readySince} /> : "not Ready"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
