"use client";

import { useDeferredValue, useState } from "react";
import { useAudit, type AuditFilters } from "@/lib/client/audit";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";

const FILTERS = [
  { key: "actor", label: "Actor", placeholder: "admin@example.com" },
  { key: "action", label: "Action", placeholder: "settings." },
  { key: "target", label: "Target id", placeholder: "cluster id" },
] as const;

export function AuditTable() {
  const [filters, setFilters] = useState<Omit<AuditFilters, "cursor">>({});
  // Cursors of the pages before the current one, for "Newer".
  const [cursors, setCursors] = useState<string[]>([]);
  const deferred = useDeferredValue(filters);
  const query = useAudit({ ...deferred, cursor: cursors[cursors.length - 1] });

  const setFilter = (key: keyof typeof filters, value: string) => {
    setFilters((f) => ({ ...f, [key]: value || undefined }));
    setCursors([]);
  };

  return (
    <div className="space-y-4">
      <form
        role="search"
        aria-label="Filter the audit log"
        className="grid grid-cols-1 gap-3 sm:grid-cols-3"
        onSubmit={(e) => e.preventDefault()}
      >
        {FILTERS.map((f) => (
          <label key={f.key} className="space-y-1.5 text-sm font-medium">
            <span>{f.label}</span>
            <input
              className={inputClass}
              placeholder={f.placeholder}
              value={filters[f.key] ?? ""}
              onChange={(e) => setFilter(f.key, e.target.value)}
            />
          </label>
        ))}
      </form>

      {query.isPending ? (
        <TableSkeleton rows={10} label="Loading the audit log" />
      ) : query.isError ? (
        <ErrorState message={query.error.message} onRetry={() => void query.refetch()} />
      ) : query.data.items.length === 0 ? (
        <EmptyState title={Object.values(filters).some(Boolean) ? "No entries match these filters" : "Nothing has happened yet"}>
          Changes made by people, API keys and agents appear here as they happen.
        </EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Audit log entries, newest first</caption>
            <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500 dark:bg-slate-800/50 dark:text-slate-400">
              <tr>
                <th scope="col" className="px-4 py-2.5 font-medium">
                  Time
                </th>
                <th scope="col" className="px-4 py-2.5 font-medium">
                  Actor
                </th>
                <th scope="col" className="px-4 py-2.5 font-medium">
                  Action
                </th>
                <th scope="col" className="px-4 py-2.5 font-medium">
                  Target
                </th>
                <th scope="col" className="px-4 py-2.5 font-medium">
                  Details
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {query.data.items.map((e) => (
                <tr key={e.id} className="align-top">
                  <td className="whitespace-nowrap px-4 py-2.5 tabular-nums text-slate-600 dark:text-slate-400">
                    <time dateTime={e.at} title={e.at}>
                      {new Date(e.at).toLocaleString()}
                    </time>
                  </td>
                  <td className="px-4 py-2.5">{e.actor}</td>
                  <td className="px-4 py-2.5 font-mono text-xs">{e.action}</td>
                  <td className="px-4 py-2.5 font-mono text-xs">{e.targetType ? `${e.targetType}/${e.targetId}` : "—"}</td>
                  <td className="max-w-md px-4 py-2.5">
                    <code className="block truncate text-xs text-slate-600 dark:text-slate-400" title={JSON.stringify(e.details)}>
                      {JSON.stringify(e.details)}
                    </code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <div className="flex items-center justify-end gap-2">
        <Button variant="secondary" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </Button>
        <Button
          variant="secondary"
          disabled={!query.data?.nextCursor}
          onClick={() => query.data?.nextCursor && setCursors((c) => [...c, query.data.nextCursor!])}
        >
          Older
        </Button>
      </div>
    </div>
  );
}
