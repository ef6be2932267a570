"use client";

import Link from "next/link";
import type { ClusterGroup } from "@/lib/client/groups";

/** Target groups as a checkbox list (a multi-select that works with a keyboard and a screen reader). */
export function GroupPicker({
  groups,
  selected,
  onChange,
  error,
}: {
  groups: ClusterGroup[] | undefined;
  selected: string[];
  onChange: (ids: string[]) => void;
  error?: string | null;
}) {
  const toggle = (id: string, on: boolean) => onChange(on ? [...selected, id] : selected.filter((s) => s !== id));
  return (
    <fieldset className="space-y-1.5">
      <legend className="text-sm font-medium">Target groups</legend>
      {groups === undefined ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">Loading groups…</p>
      ) : groups.length === 0 ? (
        <p className="rounded-md border border-dashed border-slate-300 px-3 py-2 text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
          No cluster groups yet. A policy applies to the clusters of its groups:{" "}
          <Link href="/groups" className="font-medium text-sky-700 underline dark:text-sky-400">
            create a group
          </Link>{" "}
          first, or save the policy without targets.
        </p>
      ) : (
        <ul className="max-h-48 divide-y divide-slate-100 overflow-y-auto rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-700">
          {groups.map((g) => (
            <li key={g.id}>
              <label className="flex cursor-pointer items-center gap-3 px-3 py-2 text-sm hover:bg-slate-50 dark:hover:bg-slate-800/60">
                <input
                  type="checkbox"
                  checked={selected.includes(g.id)}
                  onChange={(e) => toggle(g.id, e.target.checked)}
                  className="h-4 w-4 rounded border-slate-300 accent-sky-600"
                />
                <span className="min-w-0 flex-1">
                  <span className="block truncate font-medium">{g.name}</span>
                  <code className="block truncate font-mono text-xs text-slate-500 dark:text-slate-400">{g.selector}</code>
                </span>
                {g.counts ? (
                  <span className="shrink-0 text-xs text-slate-500 tabular-nums dark:text-slate-400">
                    {g.counts.total.toLocaleString("en-US")} cluster{g.counts.total === 1 ? "" : "s"}
                  </span>
                ) : (
                  <span className="shrink-0 text-xs text-rose-700 dark:text-rose-400" title={g.selectorError ?? undefined}>
                    invalid selector: matches nothing
                  </span>
                )}
              </label>
            </li>
          ))}
        </ul>
      )}
      {error && <p className="text-xs text-rose-600 dark:text-rose-400">{error}</p>}
    </fieldset>
  );
}
