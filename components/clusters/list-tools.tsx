"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import { exportUrl, useCreateView, useDeleteView, useSavedViews, viewHref, viewQuery } from "@/lib/client/cluster-bulk";
import { PAGE_SIZE, PAGE_SIZES, type ClusterFilters } from "@/lib/client/cluster-filters";
import { inputClass } from "@/components/ui/field";
import { Button } from "@/components/ui/button";
import { InlineError } from "@/components/ui/inline-error";
import { NO_TEAM, TeamField } from "@/components/teams/team-field";
import { useLabelSummary } from "@/lib/client/labels";
import { LABEL_COLUMN_PREFIX, OPTIONAL_COLUMNS, labelColumnKey } from "./cluster-columns";

const menu =
  "absolute right-0 z-20 mt-1 w-56 space-y-1 rounded-md border border-slate-200 bg-white p-2 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900";
const summary =
  "inline-flex h-8 cursor-pointer list-none items-center rounded-md border border-slate-300 bg-white px-3 text-sm font-medium hover:bg-slate-100 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800";

/** Page size, columns and export of the cluster list. */
export function ListTools({
  filters,
  onPageSize,
  columns,
  onColumns,
}: {
  filters: ClusterFilters;
  onPageSize: (n: number) => void;
  columns: readonly string[];
  onColumns: (keys: string[]) => void;
}) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <label className="flex items-center gap-2 text-sm">
        <span className="whitespace-nowrap text-slate-600 dark:text-slate-400">Per page</span>
        <select
          className={`${inputClass} h-8 w-20`}
          value={filters.pageSize ?? PAGE_SIZE}
          onChange={(e) => onPageSize(Number(e.target.value))}
        >
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <ColumnChooser columns={columns} onColumns={onColumns} />
      <details className="relative">
        <summary className={summary}>Export</summary>
        <div className={menu}>
          <p className="px-1 text-xs text-slate-500 dark:text-slate-400">Every cluster matching the current filter</p>
          {(["csv", "json"] as const).map((f) => (
            <a
              key={f}
              href={exportUrl(filters, f)}
              download
              className="block rounded px-1 py-0.5 text-sky-700 hover:bg-slate-100 dark:text-sky-400 dark:hover:bg-slate-800"
            >
              Download {f.toUpperCase()}
            </a>
          ))}
        </div>
      </details>
    </div>
  );
}

const choice = "flex items-center gap-2 rounded px-1 py-0.5 hover:bg-slate-100 dark:hover:bg-slate-800";

/**
 * The optional columns, and a column per label key the person picks from the fleet's label
 * keys (each shows that label's value). The choice is kept like the other columns.
 */
function ColumnChooser({ columns, onColumns }: { columns: readonly string[]; onColumns: (keys: string[]) => void }) {
  // The same query the label selector's suggestions read (cached for a minute).
  const labels = useLabelSummary();
  const toggle = (key: string, on: boolean) =>
    onColumns(on ? [...columns.filter((k) => k !== key), key] : columns.filter((k) => k !== key));
  const labelKeys = [
    ...new Set([
      ...(labels.data?.keys.map((k) => k.key) ?? []),
      ...columns.filter((k) => k.startsWith(LABEL_COLUMN_PREFIX)).map((k) => k.slice(LABEL_COLUMN_PREFIX.length)),
    ]),
  ].sort();
  return (
    <details className="relative">
      <summary className={summary}>Columns</summary>
      <div className={`${menu} max-h-[70vh] w-64 overflow-y-auto`}>
        <fieldset className="space-y-1">
          <legend className="sr-only">Columns to show</legend>
          {OPTIONAL_COLUMNS.map((c) => (
            <label key={c.key} className={choice}>
              <input
                type="checkbox"
                className="size-4 accent-sky-600"
                checked={columns.includes(c.key)}
                onChange={(e) => toggle(c.key, e.target.checked)}
              />
              {c.label}
            </label>
          ))}
        </fieldset>
        <fieldset className="mt-2 space-y-1 border-t border-slate-200 pt-2 dark:border-slate-700">
          <legend className="px-1 pt-2 text-xs font-medium text-slate-600 dark:text-slate-400">Label columns</legend>
          {labels.isPending ? (
            <p className="px-1 text-xs text-slate-500 dark:text-slate-400">Loading label keys…</p>
          ) : labels.isError ? (
            <p className="px-1 text-xs text-rose-600 dark:text-rose-400">Could not load the label keys</p>
          ) : labelKeys.length === 0 ? (
            <p className="px-1 text-xs text-slate-500 dark:text-slate-400">No labels in the fleet yet</p>
          ) : (
            labelKeys.map((key) => (
              <label key={key} className={choice}>
                <input
                  type="checkbox"
                  className="size-4 accent-sky-600"
                  checked={columns.includes(labelColumnKey(key))}
                  onChange={(e) => toggle(labelColumnKey(key), e.target.checked)}
                />
                <span className="font-mono text-xs [overflow-wrap:anywhere]">{key}</span>
              </label>
            ))
          )}
        </fieldset>
      </div>
    </details>
  );
}

/**
 * Saved views, each a link: the fleet's (shared by the fleet roles) and those of the person's
 * teams, marked with the team. Operators save views, for the fleet (a fleet operator) or for a team
 * they operate in, and delete the ones they could have saved.
 */
export function SavedViews({ filters, fleet, teams }: { filters: ClusterFilters; fleet: boolean; teams: string[] }) {
  const views = useSavedViews();
  const create = useCreateView();
  const remove = useDeleteView();
  const [name, setName] = useState("");
  // Whose view a new one is: NO_TEAM the fleet's, else a team's name.
  const [owner, setOwner] = useState(fleet ? NO_TEAM : (teams[0] ?? NO_TEAM));
  const canEdit = fleet || teams.length > 0;
  const mayDelete = (team: string | null) => (team ? fleet || teams.includes(team) : fleet);
  const current = viewQuery(filters);
  const save = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim())
      create.mutate({ name: name.trim(), query: current, ...(owner ? { team: owner } : {}) }, { onSuccess: () => setName("") });
  };
  return (
    <section aria-label="Saved views" className="flex flex-wrap items-center gap-2 text-sm">
      <span className="text-slate-600 dark:text-slate-400">Views:</span>
      {views.isPending ? (
        <span className="text-slate-500 dark:text-slate-400">loading…</span>
      ) : views.isError ? (
        <span className="text-rose-600 dark:text-rose-400">could not load the saved views</span>
      ) : views.data.items.length === 0 ? (
        <span className="text-slate-500 dark:text-slate-400">none saved yet</span>
      ) : (
        <ul className="flex flex-wrap gap-1.5">
          {views.data.items.map((v) => (
            <li
              key={v.id}
              className={`inline-flex items-center rounded-full border text-xs ${v.query === current ? "border-sky-500 bg-sky-50 dark:bg-sky-950/50" : "border-slate-300 dark:border-slate-700"}`}
            >
              <Link
                href={viewHref(v.query)}
                className="px-2.5 py-1 font-medium hover:underline"
                title={`${v.query || "all clusters"}${v.team ? ` (team ${v.team})` : ""}`}
              >
                {v.name}
                {v.team && <span className="ml-1 font-normal text-slate-500 dark:text-slate-400">· {v.team}</span>}
              </Link>
              {mayDelete(v.team) && (
                <button
                  type="button"
                  aria-label={`Delete view ${v.name}`}
                  className="rounded-full px-1.5 py-1 text-slate-500 hover:text-rose-600"
                  onClick={() => remove.mutate(v.id)}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canEdit && (
        <form onSubmit={save} className="flex items-center gap-1.5">
          <label htmlFor="view-name" className="sr-only">
            Name of the new view
          </label>
          <input
            id="view-name"
            className={`${inputClass} h-8 w-40`}
            placeholder="Save this view as…"
            maxLength={80}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          {/* A single team's member saves for it without being asked. */}
          <TeamField
            id="view-owner"
            label="Save the view for"
            hideLabel
            teams={teams.map((t) => ({ value: t, label: `for team ${t}` }))}
            fleet={fleet ? "for the fleet" : undefined}
            note={null}
            value={owner}
            onChange={setOwner}
            className={`${inputClass} h-8 w-auto`}
          />
          <Button type="submit" variant="secondary" className="h-8 whitespace-nowrap" disabled={!name.trim() || create.isPending}>
            Save view
          </Button>
        </form>
      )}
      {(create.error || remove.error) && <InlineError error={create.error ?? remove.error} className="w-full" />}
    </section>
  );
}
