"use client";

import Link from "next/link";
import { isEmptyFilter } from "@/lib/contracts/clusters";
import { rolloutUrl, type Selection } from "@/lib/client/cluster-bulk";
import { filterOf } from "@/lib/client/cluster-filters";
import { Button } from "@/components/ui/button";
import { selectionText } from "./bulk-selection-text";

/**
 * What is selected and what can be done with it. After a whole page is picked it offers every
 * cluster the filter matches; the count there is the list's (the action re-evaluates the filter).
 */
export function BulkActionsBar({
  selection,
  pageComplete,
  matching,
  onSelectMatching,
  onClear,
  onEditLabels,
  onDrain,
  onRetirePool,
  canRollout,
}: {
  selection: Selection;
  /** the whole page is selected and more clusters match than the page shows */
  pageComplete: boolean;
  matching: { count: number; capped: boolean };
  onSelectMatching: () => void;
  onClear: () => void;
  onEditLabels: () => void;
  onDrain: () => void;
  onRetirePool: () => void;
  /** the person may open the new-rollout page */
  canRollout: boolean;
}) {
  // The server refuses it too: "all matching" no filter is the whole fleet.
  const wholeFleet = selection.kind === "matching" && isEmptyFilter(filterOf(selection.filters));
  return (
    <div
      role="region"
      aria-label="Bulk actions"
      className="flex flex-wrap items-center gap-x-3 gap-y-2 rounded-lg border border-sky-200 bg-sky-50 px-4 py-2 text-sm dark:border-sky-900 dark:bg-sky-950/40"
    >
      <p className="font-medium" aria-live="polite" data-testid="bulk-selection">
        {selectionText(selection)}
      </p>
      {selection.kind === "ids" && pageComplete && (
        <Button variant="ghost" className="h-8 underline" onClick={onSelectMatching}>
          Select all {matching.capped ? "more than " : ""}
          {matching.count.toLocaleString("en-US")} matching
        </Button>
      )}
      <div className="flex flex-wrap items-center gap-2 sm:ml-auto">
        <Button variant="secondary" className="h-8" onClick={onEditLabels}>
          Edit labels…
        </Button>
        {canRollout && (
          <Link
            href={rolloutUrl(selection)}
            className="inline-flex h-8 items-center rounded-md border border-slate-300 bg-white px-3.5 text-sm font-medium text-slate-800 hover:bg-slate-100 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800"
          >
            Create a rollout…
          </Link>
        )}
        <Button
          variant="secondary"
          className="h-8 text-rose-700 disabled:opacity-60 dark:text-rose-300"
          onClick={onDrain}
          disabled={wholeFleet}
          aria-describedby={wholeFleet ? "bulk-drain-needs-filter" : undefined}
        >
          Drain and deregister…
        </Button>
        <Button
          variant="secondary"
          className="h-8 text-rose-700 disabled:opacity-60 dark:text-rose-300"
          onClick={onRetirePool}
          disabled={wholeFleet}
          aria-describedby={wholeFleet ? "bulk-drain-needs-filter" : undefined}
        >
          Retire a pool…
        </Button>
        <Button variant="ghost" className="h-8" onClick={onClear}>
          Clear selection
        </Button>
      </div>
      {wholeFleet && (
        <p id="bulk-drain-needs-filter" className="w-full text-xs text-slate-600 sm:text-right dark:text-slate-400">
          Drain and deregister, and retiring a pool, need a filter: with none, &ldquo;all matching&rdquo; is the whole fleet.
          Filter the list or pick clusters.
        </p>
      )}
    </div>
  );
}
