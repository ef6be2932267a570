"use client";

import Link from "next/link";
import type { ClusterListItem, ListSort, SortOrder } from "@/lib/client/clusters";
import { StatusBadge } from "@/components/ui/status-badge";
import { RelativeTime } from "@/components/ui/relative-time";
import { LabelChips } from "@/components/ui/label-chips";

type Column = { key: string; label: string; sort?: ListSort; className?: string };

const COLUMNS: Column[] = [
  { key: "name", label: "Name", sort: "name", className: "w-[26%]" },
  { key: "status", label: "Status", sort: "status", className: "w-[11%]" },
  { key: "labels", label: "Labels" },
  { key: "lastSeen", label: "Last seen", sort: "lastHeartbeatAt", className: "w-[12%]" },
  { key: "kubernetes", label: "Kubernetes", className: "w-[10%]" },
  { key: "agent", label: "Agent", className: "w-[7%]" },
];

const cell = "px-4 py-2.5";

/**
 * One page of clusters. Sorting is the server's: a header click asks for a new page. Row links
 * are not prefetched: fifty server renders per page view would cost more than the navigation saves.
 */
export function ClustersTable({
  items,
  sort,
  order,
  onSort,
  busy,
  requiredLabels = [],
}: {
  items: readonly ClusterListItem[];
  requiredLabels?: readonly string[];
  sort: ListSort;
  order: SortOrder;
  onSort: (column: ListSort) => void;
  busy?: boolean;
}) {
  return (
    <div
      className={`overflow-x-auto rounded-lg border border-slate-200 bg-white transition-opacity dark:border-slate-800 dark:bg-slate-900 ${busy ? "opacity-60" : ""}`}
      aria-busy={busy || undefined}
    >
      <table className="w-full min-w-3xl table-fixed text-left text-sm">
        <caption className="sr-only">
          Clusters, sorted by {sort === "lastHeartbeatAt" ? "last seen" : sort} ({order === "asc" ? "ascending" : "descending"})
        </caption>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500 dark:bg-slate-800/50 dark:text-slate-400">
          <tr>
            {COLUMNS.map((c) => (
              <th
                key={c.key}
                scope="col"
                className={`${c.sort ? "px-2" : "px-4"} py-1.5 font-medium ${c.className ?? ""}`}
                aria-sort={c.sort && c.sort === sort ? (order === "asc" ? "ascending" : "descending") : undefined}
              >
                {c.sort ? (
                  <SortButton label={c.label} active={c.sort === sort} order={order} onClick={() => onSort(c.sort!)} />
                ) : (
                  c.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {items.map((c) => (
            <tr key={c.id} className="hover:bg-slate-50 dark:hover:bg-slate-800/40" data-cluster-id={c.id}>
              <td className={cell}>
                <Link
                  href={`/clusters/${c.id}`}
                  prefetch={false}
                  title={c.name}
                  className="block truncate font-medium text-sky-700 hover:underline dark:text-sky-400"
                >
                  {c.name}
                </Link>
              </td>
              <td className={cell}>
                <StatusBadge status={c.status} />
              </td>
              <td className={`${cell} py-2`}>
                <LabelChips labels={c.labels} max={2} nowrap first={requiredLabels} />
              </td>
              <td className={`${cell} whitespace-nowrap text-slate-600 dark:text-slate-400`}>
                <RelativeTime iso={c.lastHeartbeatAt} fallback="no heartbeat yet" />
              </td>
              <td className={`${cell} truncate font-mono text-xs text-slate-600 dark:text-slate-400`}>
                {c.kubernetesVersion ?? "—"}
              </td>
              <td className={`${cell} truncate font-mono text-xs text-slate-600 dark:text-slate-400`}>{c.agentVersion ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SortButton({
  label,
  active,
  order,
  onClick,
}: {
  label: string;
  active: boolean;
  order: SortOrder;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      onClick={onClick}
      className={`inline-flex items-center gap-1 rounded px-2 py-1 whitespace-nowrap uppercase tracking-wide hover:bg-slate-200/60 hover:text-slate-800 dark:hover:bg-slate-700/60 dark:hover:text-slate-200 ${active ? "text-slate-800 dark:text-slate-200" : ""}`}
    >
      {label}
      <span aria-hidden className={`text-[10px] ${active ? "" : "opacity-30"}`}>
        {active ? (order === "asc" ? "▲" : "▼") : "▲"}
      </span>
    </button>
  );
}
