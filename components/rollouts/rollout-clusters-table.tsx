"use client";

import Link from "next/link";
import { useState } from "react";
import { NOT_PLANNED_STAGE } from "@/lib/domain/rollouts";
import type { Rollout, RolloutClusterState } from "@/lib/client/rollouts";
import { Badge, type Tone } from "@/components/ui/badge";
import { LocalTime } from "@/components/ui/local-time";
import { formatDuration } from "@/components/ui/format";
import { TableHead } from "@/components/ui/table-head";
import { ScrollRegion } from "@/components/ui/scroll-region";

const TONE: Record<RolloutClusterState, Tone> = {
  Pending: "neutral",
  Upgrading: "blue",
  Succeeded: "green",
  Failed: "red",
  Skipped: "neutral",
};
const STATES: RolloutClusterState[] = ["Pending", "Upgrading", "Succeeded", "Failed", "Skipped"];

/**
 * Every cluster of the rollout: its stage, state, versions before and now, timing and error, and for
 * a cluster whose agent is managed by GitOps, the image to put in its repository.
 */
export function RolloutClustersTable({ rollout }: { rollout: Rollout }) {
  const [filter, setFilter] = useState<RolloutClusterState | "all">("all");
  const rows = filter === "all" ? rollout.clusters : rollout.clusters.filter((c) => c.state === filter);
  return (
    <div className="space-y-3">
      <div role="group" aria-label="Show clusters" className="flex flex-wrap gap-2">
        {(["all", ...STATES] as const).map((s) => {
          const n = s === "all" ? rollout.clusters.length : rollout.clusters.filter((c) => c.state === s).length;
          return (
            <button
              key={s}
              type="button"
              aria-pressed={filter === s}
              onClick={() => setFilter(s)}
              className={`inline-flex h-8 items-center gap-1.5 rounded-full border px-3 text-xs font-medium ${
                filter === s
                  ? "border-sky-600 bg-sky-50 text-sky-800 dark:border-sky-500 dark:bg-sky-950 dark:text-sky-200"
                  : "border-slate-300 text-slate-700 hover:bg-slate-100 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800"
              }`}
            >
              {s === "all" ? "All" : s}
              <span className="text-slate-600 tabular-nums dark:text-slate-400">{n}</span>
            </button>
          );
        })}
      </div>
      <ScrollRegion label="Rollout clusters table" className="rounded-md border border-slate-200 dark:border-slate-800">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Clusters in this rollout by stage</caption>
          <TableHead columns={["Cluster", "Stage", "State", "Agent version", "Started", "Took"]} />
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {rows.length === 0 && (
              <tr>
                <td colSpan={6} className="px-4 py-6 text-center text-slate-500 dark:text-slate-400">
                  No cluster in this state.
                </td>
              </tr>
            )}
            {rows.map((c) => {
              const onTarget = c.agentVersion === rollout.targetVersion;
              return (
                <tr key={c.clusterId} data-cluster={c.name ?? c.clusterId} className="align-top">
                  <td className="px-4 py-2.5">
                    {c.name ? (
                      <Link
                        href={`/clusters/${encodeURIComponent(c.clusterId)}`}
                        className="font-medium text-sky-700 hover:underline dark:text-sky-400"
                      >
                        {c.name}
                      </Link>
                    ) : (
                      <span className="text-slate-500 dark:text-slate-400" title={c.clusterId}>
                        removed cluster
                      </span>
                    )}
                    {c.error && <div className="mt-0.5 max-w-md text-xs text-rose-700 dark:text-rose-400">{c.error}</div>}
                    {c.handoff && c.state === "Upgrading" && (
                      <div
                        data-testid="rollout-handoff"
                        className="mt-0.5 max-w-md text-xs break-words text-amber-800 dark:text-amber-300"
                      >
                        {c.handoff}; done when the new version heartbeats
                      </div>
                    )}
                  </td>
                  <td className="px-4 py-2.5 text-slate-600 dark:text-slate-400">
                    {c.stage === NOT_PLANNED_STAGE ? "not planned" : (rollout.stages[c.stage]?.name ?? c.stage + 1)}
                  </td>
                  <td className="px-4 py-2.5">
                    <Badge tone={TONE[c.state]}>{c.state}</Badge>
                  </td>
                  <td className="px-4 py-2.5 font-mono text-xs whitespace-nowrap">
                    {c.fromVersion && c.fromVersion !== c.agentVersion && (
                      <>
                        <span className="text-slate-500 dark:text-slate-400">{c.fromVersion}</span>
                        <span aria-hidden className="text-slate-400">
                          {" "}
                          →{" "}
                        </span>
                        <span className="sr-only"> now </span>
                      </>
                    )}
                    <span className={onTarget ? "font-semibold text-emerald-700 dark:text-emerald-400" : ""}>
                      {c.agentVersion ?? "—"}
                    </span>
                  </td>
                  <td className="px-4 py-2.5 text-slate-600 tabular-nums dark:text-slate-400">
                    {c.startedAt ? <LocalTime iso={c.startedAt} /> : "—"}
                  </td>
                  <td className="px-4 py-2.5 text-slate-600 tabular-nums dark:text-slate-400">
                    {c.startedAt && c.finishedAt ? formatDuration(Date.parse(c.finishedAt) - Date.parse(c.startedAt)) : "—"}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollRegion>
    </div>
  );
}
