"use client";

import { PREVIEW_LIMIT, useSelectorPreview } from "@/lib/client/groups";
import { StatusBadge } from "@/components/ui/status-badge";
import { Skeleton } from "@/components/ui/skeleton";

/**
 * The clusters a selector matches right now. `selector` is null while there is nothing valid to
 * ask about (`reason` says why); `settling` while the user is still typing.
 */
export function SelectorPreview({ selector, reason, settling }: { selector: string | null; reason: string; settling: boolean }) {
  const preview = useSelectorPreview(selector);
  const data = selector !== null ? preview.data : undefined;
  const busy = settling || (selector !== null && preview.isFetching);

  let summary: string;
  if (selector === null) summary = reason;
  else if (preview.isError) summary = "Could not load the preview";
  else if (!data) summary = "Looking for matches…";
  else if (data.total === 0) summary = "Matches no clusters yet";
  else summary = `Matches ${data.total.toLocaleString("en-US")} cluster${data.total === 1 ? "" : "s"}`;

  return (
    <section aria-labelledby="selector-preview-title" className="rounded-md border border-slate-200 dark:border-slate-800">
      <header className="flex items-center justify-between gap-3 border-b border-slate-200 bg-slate-50 px-3 py-2 dark:border-slate-800 dark:bg-slate-950/40">
        <h3
          id="selector-preview-title"
          className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400"
        >
          Live preview
        </h3>
        <p role="status" aria-live="polite" className="text-sm font-medium tabular-nums" data-testid="selector-preview-summary">
          {summary}
        </p>
      </header>
      {/* A fixed height: the dialog must not jump while matches come and go under the user's typing. */}
      <div className={`h-52 overflow-y-auto transition-opacity ${busy ? "opacity-60" : ""}`}>
        {selector === null ? (
          <p className="px-3 py-3 text-sm text-slate-500 dark:text-slate-400">
            Matching clusters appear here as you type, before anything is saved.
          </p>
        ) : preview.isError ? (
          <p className="px-3 py-3 text-sm text-rose-700 dark:text-rose-400">{preview.error.message}</p>
        ) : !data ? (
          <div className="space-y-2 p-3" aria-hidden>
            {Array.from({ length: 4 }, (_, i) => (
              <Skeleton key={i} className="h-6 w-full" />
            ))}
          </div>
        ) : data.total === 0 ? (
          <p className="px-3 py-3 text-sm text-slate-500 dark:text-slate-400">
            No registered cluster has these labels. The group fills up as matching clusters register.
          </p>
        ) : (
          <ul aria-label="Matching clusters" className="divide-y divide-slate-100 dark:divide-slate-800">
            {data.items.map((c) => (
              <li key={c.id} className="flex items-center justify-between gap-3 px-3 py-1.5">
                <div className="min-w-0">
                  <div className="truncate font-mono text-sm">{c.name}</div>
                  <div className="truncate font-mono text-xs text-slate-500 dark:text-slate-400">
                    {Object.entries(c.labels)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(", ")}
                  </div>
                </div>
                <StatusBadge status={c.status} />
              </li>
            ))}
            {data.total > data.items.length && (
              <li className="px-3 py-2 text-xs text-slate-500 dark:text-slate-400">
                and {(data.total - data.items.length).toLocaleString("en-US")} more (showing the first {PREVIEW_LIMIT})
              </li>
            )}
          </ul>
        )}
      </div>
    </section>
  );
}
