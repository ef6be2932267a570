import type { RolloutPlan } from "@/lib/client/rollouts";
import { clustersToUpgrade, estimateRollout } from "@/lib/domain/rollout-eta";
import { formatDuration } from "@/lib/domain/time-format";

const plural = (n: number, word: string, many = `${word}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? word : many}`;

/**
 * What a plan will do, in the same words in the rollout form and in its start confirmation: how
 * many clusters it upgrades (one function counts for both) and about how long it takes.
 */
export function PlanOutcome({
  plan,
  targetVersion,
  maxUnavailable,
  waitSeconds,
  requireApproval,
}: {
  plan: RolloutPlan;
  targetVersion: string;
  maxUnavailable: number;
  waitSeconds: number;
  requireApproval: boolean;
}) {
  const upgrades = clustersToUpgrade(plan);
  const eta = estimateRollout({
    stages: plan.stages,
    maxUnavailable,
    waitSeconds,
    heartbeatIntervalSeconds: plan.heartbeatIntervalSeconds,
  });
  const left = [
    plan.alreadyOnTarget ? `${plural(plan.alreadyOnTarget, "cluster")} already on it` : null,
    plan.skipped.length ? `${plural(plan.skipped.length, "cluster")} skipped` : null,
  ].filter(Boolean);
  return (
    <div className="space-y-1.5">
      <p>
        <strong data-testid="plan-upgrades" className="text-slate-900 tabular-nums dark:text-slate-100">
          {plural(upgrades, "cluster")} will be upgraded
        </strong>{" "}
        to <code className="font-mono">{targetVersion}</code>
        {left.length ? ` (${left.join(", ")})` : ""}.
      </p>
      {plan.scope && (
        <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="plan-scope">
          Within team {plan.scope.team}&apos;s scope
          {plan.scope.leftOut
            ? `: ${plural(plan.scope.leftOut, "matching cluster")} outside it ${plan.scope.leftOut === 1 ? "is" : "are"} left out`
            : ""}
          . Each cluster is checked against the scope again when its turn comes.
        </p>
      )}
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {upgrades === 0 ? (
          <span data-testid="plan-eta">Nothing to upgrade: it finishes as soon as it starts.</span>
        ) : (
          <>
            <span data-testid="plan-eta">
              About{" "}
              <strong className="text-slate-900 tabular-nums dark:text-slate-100">{formatDuration(eta.seconds * 1000)}</strong>
            </span>{" "}
            from the start: {plural(eta.batches, "batch", "batches")} of at most {maxUnavailable} at ~
            {formatDuration(eta.perClusterSeconds * 1000)} each (two {plan.heartbeatIntervalSeconds} s heartbeats and an agent
            restart)
            {eta.waitsSeconds ? `, plus ${formatDuration(eta.waitsSeconds * 1000)} of waits between stages` : ""}
            {requireApproval ? ", plus the time approvals take" : ""}. Upgrade windows can make it longer.
          </>
        )}
      </p>
    </div>
  );
}
