"use client";

import Link from "next/link";
import { Fragment } from "react";
import type { ListSort, SortOrder } from "@/lib/client/cluster-filters";
import type { ClusterListItem } from "@/lib/client/clusters";
import { StatusBadge } from "@/components/ui/status-badge";
import { RelativeTime } from "@/components/ui/relative-time";
import { LabelChips } from "@/components/ui/label-chips";
import { chosenColumns, type OptionalColumn } from "./cluster-columns";
import { ClusterReasons } from "./cluster-reasons";

type Column = { key: string; label: string; sort?: ListSort; className?: string };

const COLUMNS: Column[] = [
  { key: "name", label: "Name", sort: "name", className: "w-[16%]" },
  { key: "status", label: "Status", sort: "status", className: "w-[10%]" },
  { key: "labels", label: "Labels" },
  { key: "lastSeen", label: "Last seen", sort: "lastHeartbeatAt", className: "w-[10%]" },
];

/** Row selection for bulk actions (operators only); the header box selects the page. */
export type RowSelection = {
  selected: ReadonlySet<string>;
  onToggle: (id: string) => void;
  onTogglePage: (select: boolean) => void;
};

const cell = "px-3 py-2.5 align-top";

const SORT_NAMES: Record<ListSort, string> = {
  name: "name",
  status: "status",
  lastHeartbeatAt: "last seen",
  registeredAt: "registration",
  notReadySince: "NotReady since",
  agentVersion: "agent version",
  kubernetesVersion: "Kubernetes version",
};

/**
 * A cluster's name, whole: long names wrap (at any character when they must) instead of losing
 * their distinguishing end to an ellipsis.
 */
function NameLink({ c }: { c: ClusterListItem }) {
  return (
    <Link
      href={`/clusters/${c.id}`}
      prefetch={false}
      className="block font-medium text-sky-700 [overflow-wrap:anywhere] hover:underline dark:text-sky-400"
      data-testid="cluster-name"
    >
      {c.name}
    </Link>
  );
}

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
  columns,
  selection,
}: {
  items: readonly ClusterListItem[];
  /** keys of OPTIONAL_COLUMNS to show */
  columns: readonly string[];
  selection?: RowSelection;
  requiredLabels?: readonly string[];
  sort: ListSort;
  order: SortOrder;
  onSort: (column: ListSort) => void;
  busy?: boolean;
}) {
  const chosen = chosenColumns(columns);
  const [besideStatus, atEnd] = [chosen.filter((c) => c.besideStatus), chosen.filter((c) => !c.besideStatus)];
  const pageSelected = selection ? items.filter((c) => selection.selected.has(c.id)).length : 0;
  const allOnPage = pageSelected > 0 && pageSelected === items.length;
  return (
    // A narrow window scrolls the table in its own box, which keyboard users must reach too.
    <div
      className={`overflow-x-auto rounded-lg border border-slate-200 bg-white transition-opacity focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-slate-800 dark:bg-slate-900 ${busy ? "opacity-60" : ""}`}
      aria-busy={busy || undefined}
      role="region"
      aria-label="Clusters table"
      tabIndex={0}
    >
      <table className="w-full min-w-3xl table-fixed text-left text-sm">
        <caption className="sr-only">
          Clusters, sorted by {SORT_NAMES[sort]} ({order === "asc" ? "ascending" : "descending"})
        </caption>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500 dark:bg-slate-800/50 dark:text-slate-400">
          <tr>
            {selection && (
              <th scope="col" className="w-10 py-1.5 pl-4">
                <input
                  type="checkbox"
                  aria-label="Select every cluster on this page"
                  className="size-4 align-middle accent-sky-600"
                  checked={allOnPage}
                  ref={(el) => {
                    if (el) el.indeterminate = pageSelected > 0 && !allOnPage;
                  }}
                  onChange={() => selection.onTogglePage(!allOnPage)}
                />
              </th>
            )}
            {COLUMNS.map((c) => (
              <Fragment key={c.key}>
                <th
                  scope="col"
                  className={`${c.sort ? "px-1" : "px-3"} py-1.5 font-medium ${c.className ?? ""}`}
                  aria-sort={c.sort && c.sort === sort ? (order === "asc" ? "ascending" : "descending") : undefined}
                >
                  {c.sort ? (
                    <SortButton label={c.label} active={c.sort === sort} order={order} onClick={() => onSort(c.sort!)} />
                  ) : (
                    c.label
                  )}
                </th>
                {c.key === "status" && besideStatus.map((o) => optionalHeader(o, sort, order, onSort))}
              </Fragment>
            ))}
            {atEnd.map((o) => optionalHeader(o, sort, order, onSort))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {items.map((c) => (
            <tr
              key={c.id}
              className={`hover:bg-slate-50 dark:hover:bg-slate-800/40 ${selection?.selected.has(c.id) ? "bg-sky-50 dark:bg-sky-950/40" : ""}`}
              data-cluster-id={c.id}
            >
              {selection && (
                <td className="py-2.5 pl-4 align-top">
                  <input
                    type="checkbox"
                    aria-label={`Select ${c.name}`}
                    className="mt-0.5 size-4 accent-sky-600"
                    checked={selection.selected.has(c.id)}
                    onChange={() => selection.onToggle(c.id)}
                  />
                </td>
              )}
              <td className={cell}>
                <NameLink c={c} />
              </td>
              <td className={cell}>
                <StatusBadge status={c.status} />
              </td>
              {besideStatus.map((col) => optionalCell(col, c))}
              <td className={`${cell} py-2`}>
                <LabelChips labels={c.labels} max={2} whole first={requiredLabels} />
              </td>
              <td className={`${cell} text-slate-600 dark:text-slate-400`}>
                <RelativeTime iso={c.lastHeartbeatAt} fallback="no heartbeat yet" />
              </td>
              {atEnd.map((col) => optionalCell(col, c))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function optionalHeader(c: OptionalColumn, sort: ListSort, order: SortOrder, onSort: (column: ListSort) => void) {
  const label = c.key.startsWith("label:") ? <span className="font-mono normal-case">{c.label}</span> : c.label;
  return (
    <th
      key={c.key}
      scope="col"
      className={`${c.sort ? "px-1" : "px-3"} py-1.5 font-medium ${c.className ?? ""}`}
      aria-sort={c.sort && c.sort === sort ? (order === "asc" ? "ascending" : "descending") : undefined}
    >
      {c.sort ? <SortButton label={c.label} active={c.sort === sort} order={order} onClick={() => onSort(c.sort!)} /> : label}
    </th>
  );
}

function optionalCell(col: OptionalColumn, c: ClusterListItem) {
  return (
    <td key={col.key} className={`${cell} min-w-0`} data-column={col.key}>
      {col.render(c)}
    </td>
  );
}

/**
 * One page of clusters as cards, for phones: name, status, the first reason and when it was
 * last seen, with the same selection boxes as the table's rows.
 */
export function ClusterCards({
  items,
  busy,
  selection,
}: {
  items: readonly ClusterListItem[];
  selection?: RowSelection;
  busy?: boolean;
}) {
  const pageSelected = selection ? items.filter((c) => selection.selected.has(c.id)).length : 0;
  const allOnPage = pageSelected > 0 && pageSelected === items.length;
  return (
    <div className="space-y-2">
      {selection && (
        <label className="flex items-center gap-3 px-3 text-sm text-slate-600 dark:text-slate-400">
          <input
            type="checkbox"
            className="size-5 accent-sky-600"
            checked={allOnPage}
            ref={(el) => {
              if (el) el.indeterminate = pageSelected > 0 && !allOnPage;
            }}
            onChange={() => selection.onTogglePage(!allOnPage)}
          />
          Select every cluster on this page
        </label>
      )}
      <ul
        aria-label="Clusters"
        aria-busy={busy || undefined}
        className={`space-y-2 transition-opacity ${busy ? "opacity-60" : ""}`}
        data-testid="cluster-cards"
      >
        {items.map((c) => (
          <li
            key={c.id}
            data-cluster-id={c.id}
            className={`flex gap-3 rounded-lg border border-slate-200 bg-white p-3 text-sm dark:border-slate-800 dark:bg-slate-900 ${selection?.selected.has(c.id) ? "bg-sky-50 dark:bg-sky-950/40" : ""}`}
          >
            {selection && (
              <input
                type="checkbox"
                aria-label={`Select ${c.name}`}
                className="mt-0.5 size-5 shrink-0 accent-sky-600"
                checked={selection.selected.has(c.id)}
                onChange={() => selection.onToggle(c.id)}
              />
            )}
            <div className="min-w-0 flex-1 space-y-1.5">
              <NameLink c={c} />
              <div className="flex flex-wrap items-center gap-2">
                <StatusBadge status={c.status} />
                <span className="text-xs text-slate-600 dark:text-slate-400">
                  seen <RelativeTime iso={c.lastHeartbeatAt} fallback="never" />
                </span>
              </div>
              {c.reasons.length > 0 && <ClusterReasons reasons={c.reasons} />}
            </div>
          </li>
        ))}
      </ul>
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
      className={`inline-flex items-center gap-1 rounded px-2 py-1 text-left uppercase tracking-wide hover:bg-slate-200/60 hover:text-slate-800 dark:hover:bg-slate-700/60 dark:hover:text-slate-200 ${active ? "text-slate-800 dark:text-slate-200" : ""}`}
    >
      {label}
      <span aria-hidden className={`text-[10px] ${active ? "" : "opacity-30"}`}>
        {active ? (order === "asc" ? "▲" : "▼") : "▲"}
      </span>
    </button>
  );
}
