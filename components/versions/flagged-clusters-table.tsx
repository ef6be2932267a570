"use client";

import Link from "next/link";
import { useState } from "react";
import type { VersionFlag } from "@/lib/domain/compatibility";
import type { VersionsOverview } from "@/lib/client/versions";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FLAG_INFO } from "./version-math";
import { TableHead } from "@/components/ui/table-head";

const FLAG_TONE: Record<VersionFlag, Tone> = { incompatible: "red", outdated: "amber", "unsupported-kubernetes": "violet" };
const PAGE = 25;

export function FlagBadge({ flag }: { flag: VersionFlag }) {
  return (
    <Badge tone={FLAG_TONE[flag]} title={FLAG_INFO[flag].hint}>
      {FLAG_INFO[flag].label}
    </Badge>
  );
}

/** Clusters whose versions need attention, filterable by flag, each linking to its page. */
export function FlaggedClustersTable({
  flagged,
  counts,
}: {
  flagged: VersionsOverview["flagged"];
  counts: VersionsOverview["flaggedCounts"];
}) {
  const [filter, setFilter] = useState<VersionFlag | "all">("all");
  const [shown, setShown] = useState(PAGE);
  const rows = filter === "all" ? flagged : flagged.filter((c) => c.flags.includes(filter));
  const chips: { key: VersionFlag | "all"; label: string; n: number }[] = [
    { key: "all", label: "All", n: flagged.length },
    ...(Object.keys(FLAG_INFO) as VersionFlag[]).map((k) => ({ key: k, label: FLAG_INFO[k].label, n: counts[k] })),
  ];
  return (
    <div className="space-y-3">
      <div role="group" aria-label="Show clusters flagged" className="flex flex-wrap gap-2">
        {chips.map((c) => (
          <button
            key={c.key}
            type="button"
            aria-pressed={filter === c.key}
            onClick={() => {
              setFilter(c.key);
              setShown(PAGE);
            }}
            className={`inline-flex h-8 items-center gap-1.5 rounded-full border px-3 text-xs font-medium ${
              filter === c.key
                ? "border-sky-600 bg-sky-50 text-sky-800 dark:border-sky-500 dark:bg-sky-950 dark:text-sky-200"
                : "border-slate-300 text-slate-700 hover:bg-slate-100 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800"
            }`}
          >
            {c.label}
            <span className="tabular-nums text-slate-500 dark:text-slate-400">{c.n.toLocaleString()}</span>
          </button>
        ))}
      </div>
      {rows.length === 0 ? (
        <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
          {flagged.length === 0
            ? "Every cluster runs a recommended agent on a supported Kubernetes."
            : "No cluster has this flag."}
        </p>
      ) : (
        <div className="overflow-x-auto rounded-md border border-slate-200 dark:border-slate-800">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Clusters whose versions are flagged</caption>
            <TableHead columns={["Cluster", "Agent", "Kubernetes", "Phase", "Flags"]} />
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {rows.slice(0, shown).map((c) => (
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
        </div>
      )}
      {rows.length > shown && (
        <div className="flex items-center justify-between text-sm text-slate-600 dark:text-slate-400">
          <span className="tabular-nums">
            Showing {shown} of {rows.length.toLocaleString()}
          </span>
          <Button variant="secondary" onClick={() => setShown((n) => n + PAGE)}>
            Show {Math.min(PAGE, rows.length - shown)} more
          </Button>
        </div>
      )}
    </div>
  );
}
