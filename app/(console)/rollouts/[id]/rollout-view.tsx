"use client";

import Link from "next/link";
import { useGroups } from "@/lib/client/groups";
import { useRollout, type Rollout } from "@/lib/client/rollouts";
import { Card } from "@/components/ui/card";
import { RelativeTime } from "@/components/ui/relative-time";
import { ErrorState } from "@/components/ui/states";
import { AfterHydration, LocalTime } from "@/components/ui/local-time";
import { formatDuration } from "@/components/ui/format";
import { RolloutActions } from "@/components/rollouts/rollout-actions";
import { RolloutClustersTable } from "@/components/rollouts/rollout-clusters-table";
import { ProgressBar, RolloutStateBadge, SegmentLegend, totalsOf } from "@/components/rollouts/rollout-progress";
import { RolloutDetailSkeleton } from "@/components/rollouts/rollout-skeletons";
import { rolloutScope, rolloutTeam } from "@/components/rollouts/rollouts-table";
import { StageProgressList } from "@/components/rollouts/stage-progress-list";
import { StatCard } from "@/components/ui/stat-card";

function Setting({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex items-baseline justify-between gap-3 py-2 first:pt-0 last:pb-0">
      <dt className="text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="min-w-0 truncate text-right tabular-nums">{children}</dd>
    </div>
  );
}

function StateNotice({ rollout, canAct }: { rollout: Rollout; canAct: boolean }) {
  if (rollout.state === "AwaitingApproval") {
    const next = rollout.stages[rollout.currentStage + 1];
    return (
      <div
        role="status"
        data-testid="awaiting-approval"
        className="rounded-lg border border-violet-300 bg-violet-50 px-5 py-3 text-sm dark:border-violet-900 dark:bg-violet-950/40"
      >
        <p className="font-semibold text-violet-900 dark:text-violet-200">Awaiting approval</p>
        <p className="mt-0.5 text-violet-800 dark:text-violet-300">
          Stage {rollout.currentStage + 1} finished. Stage {rollout.currentStage + 2}
          {next ? ` (${next.name}, ${next.total} cluster${next.total === 1 ? "" : "s"})` : ""} starts when{" "}
          {canAct ? "you approve it" : "an operator approves it"}.
        </p>
      </div>
    );
  }
  if (rollout.state === "Running" && rollout.waitingReason)
    return (
      <div
        role="status"
        data-testid="waiting-reason"
        className="rounded-lg border border-sky-300 bg-sky-50 px-5 py-3 text-sm dark:border-sky-900 dark:bg-sky-950/40"
      >
        <p className="font-semibold text-sky-900 dark:text-sky-200">Waiting for window</p>
        <p className="mt-0.5 text-sky-800 dark:text-sky-300">{rollout.waitingReason}</p>
        <p className="mt-1 text-xs text-sky-700 dark:text-sky-400">
          These clusters are not skipped: they start as soon as all their groups&apos; windows are open.
        </p>
      </div>
    );
  if (rollout.state === "Paused")
    return (
      <div
        role="status"
        className="rounded-lg border border-amber-300 bg-amber-50 px-5 py-3 text-sm dark:border-amber-900 dark:bg-amber-950/40"
      >
        <p className="font-semibold text-amber-900 dark:text-amber-200">Paused</p>
        <p className="mt-0.5 text-amber-800 dark:text-amber-300" data-testid="paused-reason">
          {rollout.pausedReason ?? "No reason given."}
        </p>
        <p className="mt-1 text-xs text-amber-700 dark:text-amber-400">
          No new upgrades start until it is resumed; failures so far do not count against the threshold again.
        </p>
      </div>
    );
  if (rollout.state === "Aborted")
    return (
      <div
        role="status"
        className="rounded-lg border border-rose-300 bg-rose-50 px-5 py-3 text-sm dark:border-rose-900 dark:bg-rose-950/40"
      >
        <p className="font-semibold text-rose-900 dark:text-rose-200">Aborted</p>
        <p className="mt-0.5 text-rose-800 dark:text-rose-300">{rollout.pausedReason ?? "No reason given."}</p>
      </div>
    );
  if (rollout.state === "Completed")
    return (
      <div
        role="status"
        className="rounded-lg border border-emerald-300 bg-emerald-50 px-5 py-3 text-sm dark:border-emerald-900 dark:bg-emerald-950/40"
      >
        <p className="font-semibold text-emerald-900 dark:text-emerald-200">Completed</p>
        <p className="mt-0.5 text-emerald-800 dark:text-emerald-300">
          Every stage finished
          {rollout.finishedAt
            ? ` in ${formatDuration(Date.parse(rollout.finishedAt) - Date.parse(rollout.createdAt))}`
            : ""}: {rollout.totals.succeeded} upgraded, {rollout.totals.skipped} skipped, {rollout.totals.failed} failed.
        </p>
      </div>
    );
  return null;
}

/** Time left, from the mean time this rollout's clusters took so far. */
function Eta({ rollout }: { rollout: Rollout }) {
  if (rollout.state === "Completed" || rollout.state === "Aborted") return null;
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="rollout-eta">
      {rollout.eta ? (
        <>
          About{" "}
          <span className="font-semibold text-slate-900 tabular-nums dark:text-slate-100">
            {formatDuration(rollout.eta.seconds * 1000)}
          </span>{" "}
          left, at {formatDuration(rollout.eta.perClusterSeconds * 1000)} per cluster (the mean of {rollout.eta.observed} upgraded
          so far){rollout.requireApproval ? ", plus the time approvals take" : ""}.
        </>
      ) : (
        "Time left: estimated once the first cluster has upgraded."
      )}
    </p>
  );
}

export function RolloutView({ id, canAct, canListGroups }: { id: string; canAct: boolean; canListGroups: boolean }) {
  // The page brings the server's copy (its first data), so the first paint needs no fetch.
  const query = useRollout(id);
  const groups = useGroups({ enabled: canListGroups });
  if (query.isPending) return <RolloutDetailSkeleton />;
  if (query.isError && !query.data)
    return <ErrorState title="Could not load this rollout" message={query.error.message} onRetry={() => void query.refetch()} />;
  const r = query.data;
  const groupName = r.groupId ? groups.data?.find((g) => g.id === r.groupId)?.name : undefined;
  const counts = totalsOf(r);

  return (
    <div className="space-y-6">
      <div>
        <nav aria-label="Breadcrumb" className="mb-2 text-sm">
          <Link href="/rollouts" className="text-sky-700 hover:underline dark:text-sky-400">
            ← Rollouts
          </Link>
        </nav>
        <div className="flex flex-wrap items-start justify-between gap-4">
          <div>
            <h1 className="flex items-center gap-3 text-xl font-semibold tracking-tight">
              {r.name}
              <RolloutStateBadge state={r.state} />
            </h1>
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
              Agents to <code className="font-mono font-medium text-slate-900 dark:text-slate-100">{r.targetVersion}</code> on{" "}
              <code className="font-mono">{rolloutScope(r, groupName)}</code>
              {r.team && <span data-testid="rollout-team"> · {rolloutTeam(r)}</span>} · started{" "}
              <AfterHydration>
                <RelativeTime iso={r.createdAt} />
              </AfterHydration>
              {r.state === "Running" && <span className="ml-2 text-xs text-sky-700 dark:text-sky-400">updating live</span>}
            </p>
          </div>
          {canAct ? (
            <RolloutActions rollout={r} />
          ) : (
            (r.state === "Running" || r.state === "Paused" || r.state === "AwaitingApproval") && (
              <p className="max-w-64 text-right text-xs text-slate-500 dark:text-slate-400">
                Pausing, resuming, approving and aborting need the operator role.
              </p>
            )
          )}
        </div>
      </div>

      {query.isRefetchError && (
        <p
          role="status"
          className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800 dark:bg-amber-950/50 dark:text-amber-300"
        >
          Could not refresh ({query.error.message}); showing the last known progress and retrying.
        </p>
      )}
      <StateNotice rollout={r} canAct={canAct} />

      <div className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-5">
        <StatCard label="Clusters" value={r.totals.clusters} testId="rollout-clusters" />
        <StatCard
          label="Succeeded"
          value={r.totals.succeeded}
          tone={r.totals.succeeded ? "green" : "neutral"}
          testId="rollout-succeeded"
        />
        <StatCard
          label="Upgrading"
          value={r.totals.upgrading}
          tone={r.totals.upgrading ? "blue" : "neutral"}
          testId="rollout-upgrading"
        />
        <StatCard
          label="Failed"
          value={r.totals.failed}
          tone={r.totals.failed ? "red" : "neutral"}
          hint={`pauses at ${r.failureThreshold}`}
          testId="rollout-failed"
        />
        <StatCard label="Skipped" value={r.totals.skipped} testId="rollout-skipped" />
      </div>

      <div className="grid grid-cols-1 lg:grid-cols-[minmax(0,1fr)_20rem] items-start gap-6">
        <Card
          title="Stages"
          action={
            <span className="text-xs text-slate-500 dark:text-slate-400">
              stage {Math.min(r.currentStage + 1, r.stages.length)} of {r.stages.length}
            </span>
          }
        >
          <div className="space-y-5">
            <div className="space-y-2">
              <ProgressBar counts={counts} label="Whole rollout" />
              <SegmentLegend counts={counts} />
            </div>
            <Eta rollout={r} />
            <div className="border-t border-slate-100 pt-5 dark:border-slate-800">
              <StageProgressList rollout={r} />
            </div>
          </div>
        </Card>
        <Card title="Settings">
          <dl className="divide-y divide-slate-100 text-sm dark:divide-slate-800">
            <Setting label="Target version">
              <code className="font-mono">{r.targetVersion}</code>
            </Setting>
            <Setting label="Belongs to">
              {/* A team's rollout upgrades only clusters in its scope when their turn comes. */}
              {rolloutTeam(r) ?? "the fleet"}
            </Setting>
            <Setting label="Max unavailable">{r.maxUnavailable}</Setting>
            <Setting label="Soak time per stage">{formatDuration(r.waitSeconds * 1000)}</Setting>
            <Setting label="Failure threshold">{r.failureThreshold}</Setting>
            <Setting label="Per-cluster timeout">{formatDuration(r.clusterTimeoutSeconds * 1000)}</Setting>
            <Setting label="Approval between stages">{r.requireApproval ? "required" : "no"}</Setting>
            <Setting label="NotReady and draining">{r.includeUnready ? "included" : "skipped"}</Setting>
            <Setting label="Started">
              <LocalTime iso={r.createdAt} format="datetime" />
            </Setting>
            {r.finishedAt && (
              <Setting label="Finished">
                <LocalTime iso={r.finishedAt} format="datetime" />
              </Setting>
            )}
          </dl>
        </Card>
      </div>

      <Card title="Clusters">
        <RolloutClustersTable rollout={r} />
      </Card>
    </div>
  );
}
