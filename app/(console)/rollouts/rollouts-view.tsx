"use client";

import Link from "next/link";
import { useGroups } from "@/lib/client/groups";
import { useRollouts } from "@/lib/client/rollouts";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { RolloutsTable } from "@/components/rollouts/rollouts-table";

export function RolloutsView({ canCreate, canListGroups }: { canCreate: boolean; canListGroups: boolean }) {
  const rollouts = useRollouts();
  const groups = useGroups({ enabled: canListGroups });
  const groupNames = new Map((groups.data ?? []).map((g) => [g.id, g.name]));
  if (rollouts.isPending) return <TableSkeleton rows={6} label="Loading rollouts" />;
  if (rollouts.isError)
    return (
      <ErrorState title="Could not load rollouts" message={rollouts.error.message} onRetry={() => void rollouts.refetch()} />
    );
  if (rollouts.data.length === 0)
    return (
      <EmptyState title="No rollouts yet">
        <p>
          A rollout upgrades the agents of a group or selector stage by stage — one canary cluster, then batches — and pauses by
          itself when too many fail.
        </p>
        {canCreate && (
          <Link
            href="/rollouts/new"
            className="mt-4 inline-flex h-9 items-center rounded-md bg-sky-700 px-3.5 text-sm font-medium text-white hover:bg-sky-800"
          >
            Plan a rollout
          </Link>
        )}
      </EmptyState>
    );
  const running = rollouts.data.filter((r) => r.state === "Running").length;
  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-600 tabular-nums dark:text-slate-400">
        {rollouts.data.length} rollout{rollouts.data.length === 1 ? "" : "s"}
        {running > 0 && ` · ${running} running, updating live`}
      </p>
      <RolloutsTable rollouts={rollouts.data} groupNames={groupNames} />
    </div>
  );
}
