"use client";

import Link from "next/link";
import type { Rollout } from "@/lib/client/rollouts";
import { RelativeTime } from "@/components/ui/relative-time";
import { ProgressBar, RolloutStateBadge, doneOf, totalsOf } from "./rollout-progress";
import { ScrollRegion } from "@/components/ui/scroll-region";

const TH = "px-4 py-2.5 font-medium";

export function rolloutScope(r: Pick<Rollout, "selector" | "groupId">, groupName?: string): string {
  if (r.selector) return r.selector;
  return groupName ? `group ${groupName}` : "a group";
}

/** Whose rollout it is, for a team's: "team payments" (a deleted team is said so); null: the fleet's. */
export function rolloutTeam(r: Pick<Rollout, "team">): string | null {
  if (!r.team) return null;
  return r.team.name ? `team ${r.team.name}` : "a deleted team";
}

/** Rollouts newest first, with state, progress and the stage they are in. */
export function RolloutsTable({ rollouts, groupNames }: { rollouts: Rollout[]; groupNames: Map<string, string> }) {
  return (
    <ScrollRegion
      label="Rollouts table"
      className="rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
    >
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Agent rollouts, newest first</caption>
        <thead className="bg-slate-50 text-xs tracking-wide text-slate-500 uppercase dark:bg-slate-800/50 dark:text-slate-400">
          <tr>
            <th scope="col" className={TH}>
              Rollout
            </th>
            <th scope="col" className={TH}>
              State
            </th>
            <th scope="col" className={`${TH} w-72`}>
              Progress
            </th>
            <th scope="col" className={TH}>
              Stage
            </th>
            <th scope="col" className={TH}>
              Started
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {rollouts.map((r) => {
            const { done, total } = doneOf(r);
            const stage = r.stages[Math.min(r.currentStage, r.stages.length - 1)];
            return (
              <tr key={r.id} data-rollout={r.name} className="align-middle">
                <td className="max-w-80 px-4 py-3">
                  <Link
                    href={`/rollouts/${encodeURIComponent(r.id)}`}
                    className="font-medium text-sky-700 hover:underline dark:text-sky-400"
                  >
                    {r.name}
                  </Link>
                  <div className="truncate text-xs text-slate-500 dark:text-slate-400">
                    to <code className="font-mono">{r.targetVersion}</code> ·{" "}
                    {rolloutScope(r, r.groupId ? groupNames.get(r.groupId) : undefined)}
                    {r.team && <span data-testid="rollout-team"> · {rolloutTeam(r)}</span>}
                  </div>
                </td>
                <td className="px-4 py-3">
                  <RolloutStateBadge state={r.state} />
                </td>
                <td className="px-4 py-3">
                  <div className="flex items-center gap-3">
                    <div className="flex-1">
                      <ProgressBar counts={totalsOf(r)} label={`Progress of ${r.name}`} size="sm" />
                    </div>
                    <span className="w-16 text-right text-xs text-slate-600 tabular-nums dark:text-slate-400">
                      {done} / {total}
                    </span>
                  </div>
                  {r.totals.failed > 0 && (
                    <div className="mt-1 text-xs text-rose-700 dark:text-rose-400">{r.totals.failed} failed</div>
                  )}
                </td>
                <td className="px-4 py-3 whitespace-nowrap text-slate-600 dark:text-slate-400">
                  {r.state === "Completed" || r.state === "Aborted" ? (
                    "—"
                  ) : (
                    <>
                      {Math.min(r.currentStage + 1, r.stages.length)} of {r.stages.length}
                      {stage && <span className="text-slate-600 dark:text-slate-400"> · {stage.name}</span>}
                    </>
                  )}
                </td>
                <td className="px-4 py-3 whitespace-nowrap text-slate-600 dark:text-slate-400">
                  <RelativeTime iso={r.createdAt} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
