"use client";

import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { useState } from "react";
import type { VersionFlag } from "@/lib/domain/compatibility";
import { FLAGGED_PAGE_SIZE, useFlaggedClusters, type VersionsOverview } from "@/lib/client/versions";
import { InlineError } from "@/components/ui/inline-error";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FLAG_INFO } from "./version-math";
import { TableHead } from "@/components/ui/table-head";
import { ScrollRegion } from "@/components/ui/scroll-region";

const FLAG_TONE: Record<VersionFlag, Tone> = { incompatible: "red", outdated: "amber", "unsupported-kubernetes": "violet" };

export function FlagBadge({ flag }: { flag: VersionFlag }) {
  return (
    <Badge tone={FLAG_TONE[flag]} title={FLAG_INFO[flag].hint}>
      {FLAG_INFO[flag].label}
    </Badge>
  );
}

/** Clusters whose versions need attention, filterable by flag, a page at a time, each linking to its page. */
export function FlaggedClustersTable({
  counts,
  total,
  canRollout,
}: {
  counts: VersionsOverview["flaggedCounts"];
  total: number;
  /** an operator may start a rollout for the clusters shown */
  canRollout: boolean;
}) {
  const [filter, setFilter] = useState<VersionFlag | "all">("all");
  const flag = filter === "all" ? undefined : filter;
  const pages = useFlaggedClusters(flag);
  const rows = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const matching = pages.data?.pages[0]?.total ?? (flag ? counts[flag] : total);
  const chips: { key: VersionFlag | "all"; label: string; n: number }[] = [
    { key: "all", label: "All", n: total },
    ...(Object.keys(FLAG_INFO) as VersionFlag[]).map((k) => ({ key: k, label: FLAG_INFO[k].label, n: counts[k] })),
  ];
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div role="group" aria-label="Show clusters flagged" className="flex flex-wrap gap-2">
          {chips.map((c) => (
            <button
              key={c.key}
              type="button"
              aria-pressed={filter === c.key}
              onClick={() => setFilter(c.key)}
              className={`inline-flex h-8 items-center gap-1.5 rounded-full border px-3 text-xs font-medium ${
                filter === c.key
                  ? "border-sky-600 bg-sky-50 text-sky-800 dark:border-sky-500 dark:bg-sky-950 dark:text-sky-200"
                  : "border-slate-300 text-slate-700 hover:bg-slate-100 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800"
              }`}
            >
              {c.label}
              <span className="tabular-nums text-slate-600 dark:text-slate-400">{c.n.toLocaleString("en-US")}</span>
            </button>
          ))}
        </div>
        {canRollout && matching > 0 && (
          // The new-rollout page resolves the filter to the flagged clusters' ids on the server, so
          // the link stays short however many there are.
          <Link href={`/rollouts/new?flagged=${filter}`} className={buttonClass("primary", "h-8 px-3")}>
            Upgrade these {matching.toLocaleString("en-US")}…
          </Link>
        )}
      </div>
      {pages.isPending ? (
        <p className="px-4 py-6 text-center text-sm text-slate-500 dark:text-slate-400">Loading flagged clusters…</p>
      ) : pages.isError && !rows.length ? (
        <InlineError error={pages.error} />
      ) : rows.length === 0 ? (
        <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
          {total === 0 ? "Every cluster runs a recommended agent on a supported Kubernetes." : "No cluster has this flag."}
        </p>
      ) : (
        <ScrollRegion label="Flagged clusters" className="rounded-md border border-slate-200 dark:border-slate-800">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Clusters whose versions are flagged</caption>
            <TableHead columns={["Cluster", "Agent", "Kubernetes", "Phase", "Flags"]} />
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {rows.map((c) => (
                <tr key={c.id} data-cluster={c.name}>
                  <td className="px-4 py-2.5">
                    <Link
                      href={`/clusters/${encodeURIComponent(c.id)}`}
                      className="font-medium text-sky-700 hover:underline dark:text-sky-400"
                    >
                      {c.name}
                    </Link>
                  </td>
                  <td className="px-4 py-2.5 font-mono text-xs">{c.agentVersion ?? "—"}</td>
                  <td className="px-4 py-2.5 font-mono text-xs">{c.kubernetesVersion ?? "—"}</td>
                  <td className="px-4 py-2.5 text-slate-600 dark:text-slate-400">{c.phase}</td>
                  <td className="px-4 py-2.5">
                    <span className="flex flex-wrap gap-1.5">
                      {c.flags.map((f) => (
                        <FlagBadge key={f} flag={f} />
                      ))}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {pages.hasNextPage && (
        <div className="flex items-center justify-between text-sm text-slate-600 dark:text-slate-400">
          <span className="tabular-nums" data-testid="flagged-shown">
            Showing {rows.length.toLocaleString("en-US")} of {matching.toLocaleString("en-US")}
          </span>
          <Button variant="secondary" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
            {pages.isFetchingNextPage ? "Loading…" : `Show ${Math.min(FLAGGED_PAGE_SIZE, matching - rows.length)} more`}
          </Button>
        </div>
      )}
    </div>
  );
}
