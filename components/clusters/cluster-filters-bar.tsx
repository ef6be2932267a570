"use client";

import { useCallback } from "react";
import type { ClusterFilters } from "@/lib/client/cluster-filters";
import type { ClusterGroupSummary } from "@/lib/client/clusters";
import { selectorProblem } from "@/lib/domain/selector";
import { CLUSTER_STATUSES, type ClusterStatus } from "@/lib/domain/status";
import { ENROLLMENT_FILTERS, HEALTH_FILTERS, type EnrollmentFilter, type HealthFilter } from "@/lib/domain/cluster-reason";
import { inputClass } from "@/components/ui/field";
import { DebouncedInput } from "./debounced-input";

type FilterPatch = Partial<
  Pick<
    ClusterFilters,
    "status" | "health" | "enrollment" | "blockedOn" | "duplicateUid" | "selector" | "group" | "q" | "kubelet" | "instanceType"
  >
>;

const HEALTH_LABELS: Record<HealthFilter, string> = {
  ready: "Ready",
  notReady: "Not ready",
  pending: "Pending",
  flapping: "Flapping",
  degraded: "Degraded",
};
const ENROLLMENT_LABELS: Record<EnrollmentFilter, string> = { enrolled: "Enrolled", blocked: "Blocked (not enrolled)" };

/** The list's filters: free text, label selector, status, health, enrollment and group. */
export function ClusterFiltersBar({
  filters,
  groups,
  onChange,
}: {
  filters: ClusterFilters;
  /** null while the groups load; undefined: no group filter (groups are the fleet's, not a team's) */
  groups: readonly ClusterGroupSummary[] | null | undefined;
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
      <div className="col-span-2 lg:col-span-4">
        <DebouncedInput label="Search" type="search" value={filters.q ?? ""} onCommit={setQ} placeholder="Name or id" />
      </div>
      <div className="col-span-2 lg:col-span-8">
        <DebouncedInput
          label="Label selector"
          value={filters.selector ?? ""}
          onCommit={setSelector}
          // kubectl syntax, checked as typed with the same parser the server uses
          validate={selectorProblem}
          placeholder="env=prod,region in (eu,us),!legacy"
          hint="kubectl syntax: =, !=, in (…), notin (…), key, !key"
          mono
          suggestLabels
        />
      </div>
      <label className="col-span-1 block min-w-0 space-y-1.5 lg:col-span-3">
        <span className="block text-sm font-medium">Status</span>
        <select
          className={inputClass}
          value={filters.status ?? ""}
          onChange={(e) => onChange({ status: (e.target.value || undefined) as ClusterStatus | undefined })}
        >
          <option value="">All statuses</option>
          {CLUSTER_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className="col-span-1 block min-w-0 space-y-1.5 lg:col-span-3">
        <span className="block text-sm font-medium">Health</span>
        <select
          className={inputClass}
          value={filters.health ?? ""}
          onChange={(e) => onChange({ health: (e.target.value || undefined) as HealthFilter | undefined })}
        >
          <option value="">Any health</option>
          {HEALTH_FILTERS.map((h) => (
            <option key={h} value={h}>
              {HEALTH_LABELS[h]}
            </option>
          ))}
        </select>
      </label>
      <label className="col-span-1 block min-w-0 space-y-1.5 lg:col-span-3">
        <span className="block text-sm font-medium">Enrollment</span>
        <select
          className={inputClass}
          value={filters.enrollment ?? ""}
          onChange={(e) => onChange({ enrollment: (e.target.value || undefined) as EnrollmentFilter | undefined })}
        >
          <option value="">Any enrollment</option>
          {ENROLLMENT_FILTERS.map((v) => (
            <option key={v} value={v}>
              {ENROLLMENT_LABELS[v]}
            </option>
          ))}
        </select>
      </label>
      {groups !== undefined && (
        <label className="col-span-1 block min-w-0 space-y-1.5 lg:col-span-3">
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
                {g.counts ? `${g.name} (${g.counts.total.toLocaleString("en-US")})` : g.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {filters.blockedOn && (
        <p className="col-span-2 flex items-center gap-2 text-sm md:col-span-12">
          <span>
            Not enrolled, blocked on <code className="font-mono text-xs">{filters.blockedOn}</code>
          </span>
          <button
            type="button"
            onClick={() => onChange({ blockedOn: undefined })}
            className="rounded px-1.5 text-sky-700 hover:underline dark:text-sky-400"
          >
            Remove<span className="sr-only"> the blocked-on filter</span>
          </button>
        </p>
      )}
      {filters.duplicateUid && (
        <p className="col-span-2 flex items-center gap-2 text-sm md:col-span-12">
          <span>
            {filters.duplicateUid === "true"
              ? "Registered twice: clusters another active cluster shares its kube-system UID with"
              : "Not registered twice"}
          </span>
          <button
            type="button"
            onClick={() => onChange({ duplicateUid: undefined })}
            className="rounded px-1.5 text-sky-700 hover:underline dark:text-sky-400"
          >
            Remove<span className="sr-only"> the same-cluster filter</span>
          </button>
        </p>
      )}
      {filters.kubelet && (
        <p className="col-span-2 flex items-center gap-2 text-sm md:col-span-12">
          <span>
            A node pool on kubelet <code className="font-mono text-xs">{filters.kubelet}</code>
          </span>
          <button
            type="button"
            onClick={() => onChange({ kubelet: undefined })}
            className="rounded px-1.5 text-sky-700 hover:underline dark:text-sky-400"
          >
            Remove<span className="sr-only"> the kubelet filter</span>
          </button>
        </p>
      )}
      {filters.instanceType && (
        <p className="col-span-2 flex items-center gap-2 text-sm md:col-span-12">
          <span>
            A node pool of instance type <code className="font-mono text-xs">{filters.instanceType}</code>
          </span>
          <button
            type="button"
            onClick={() => onChange({ instanceType: undefined })}
            className="rounded px-1.5 text-sky-700 hover:underline dark:text-sky-400"
          >
            Remove<span className="sr-only"> the instance-type filter</span>
          </button>
        </p>
      )}
    </form>
  );
}
