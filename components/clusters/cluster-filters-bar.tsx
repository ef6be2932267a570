"use client";

import { useCallback } from "react";
import { LIST_STATUSES, type ClusterFilters, type ClusterGroupSummary } from "@/lib/client/clusters";
import { selectorProblem } from "@/lib/domain/selector";
import type { ClusterStatus } from "@/lib/domain/status";
import { inputClass } from "@/components/ui/field";
import { DebouncedInput } from "./debounced-input";

type FilterPatch = Partial<Pick<ClusterFilters, "status" | "selector" | "group" | "q">>;

/** The list's filters: free text, label selector, status and group. */
export function ClusterFiltersBar({
  filters,
  groups,
  onChange,
}: {
  filters: ClusterFilters;
  /** null while the groups load */
  groups: readonly ClusterGroupSummary[] | null;
  onChange: (patch: FilterPatch) => void;
}) {
  const setQ = useCallback((q: string) => onChange({ q: q.trim() || undefined }), [onChange]);
  const setSelector = useCallback((s: string) => onChange({ selector: s.trim() || undefined }), [onChange]);
  const knownGroup = !filters.group || groups?.some((g) => g.id === filters.group || g.name === filters.group);
  return (
    <form
      role="search"
      aria-label="Filter clusters"
      className="grid grid-cols-2 items-start gap-3 lg:grid-cols-12"
      onSubmit={(e) => e.preventDefault()}
    >
      <div className="col-span-2 lg:col-span-3">
        <DebouncedInput label="Search" type="search" value={filters.q ?? ""} onCommit={setQ} placeholder="Name or id" />
      </div>
      <div className="col-span-2 lg:col-span-5">
        <DebouncedInput
          label="Label selector"
          value={filters.selector ?? ""}
          onCommit={setSelector}
          // kubectl syntax, checked as typed with the same parser the server uses
          validate={selectorProblem}
          placeholder="env=prod,region in (eu,us),!legacy"
          hint="kubectl syntax: =, !=, in (…), notin (…), key, !key"
          mono
        />
      </div>
      <label className="block min-w-0 space-y-1.5 lg:col-span-2">
        <span className="block text-sm font-medium">Status</span>
        <select
          className={inputClass}
          value={filters.status ?? ""}
          onChange={(e) => onChange({ status: (e.target.value || undefined) as ClusterStatus | undefined })}
        >
          <option value="">All statuses</option>
          {LIST_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className="block min-w-0 space-y-1.5 lg:col-span-2">
        <span className="block text-sm font-medium">Group</span>
        <select
          className={inputClass}
          value={filters.group ?? ""}
          disabled={groups === null && !filters.group}
          onChange={(e) => onChange({ group: e.target.value || undefined })}
        >
          <option value="">{groups === null ? "Loading…" : "All groups"}</option>
          {!knownGroup && <option value={filters.group}>{filters.group}</option>}
          {groups?.map((g) => (
            <option key={g.id} value={g.id}>
              {/* A group whose stored selector is invalid has no counts (it matches nothing). */}
              {g.counts ? `${g.name} (${g.counts.total.toLocaleString()})` : g.name}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}
