"use client";

import { useRefusalSummary, type RefusalSummary } from "@/lib/client/tokens";
import { InlineError } from "@/components/ui/inline-error";
import { Skeleton } from "@/components/ui/skeleton";

const count = (n: number) => n.toLocaleString("en-US");

/**
 * Refused registrations of the last hour, in one sentence, and the addresses that sent the most:
 * a flood shows here at a glance (its refusals are counted together in the log below, not listed
 * one by one). Nothing refused: a quiet line, not a card.
 */
export function RefusalSummaryCard() {
  const query = useRefusalSummary();
  if (query.isPending) return <Skeleton className="h-16 w-full" />;
  if (query.isError) return <InlineError message={`Could not load the refusals of the last hour: ${query.error.message}`} />;
  return <RefusalSummaryView summary={query.data} />;
}

export function RefusalSummaryView({ summary: s }: { summary: RefusalSummary }) {
  if (s.refused === 0)
    return (
      <p data-testid="refusal-summary" className="text-sm text-slate-600 dark:text-slate-400">
        No registration refused in the last hour.
      </p>
    );
  const address = (a: string | null) => <span className="font-mono">{a ?? "an unknown address"}</span>;
  const only = s.sources <= 1 ? s.topSources[0] : undefined;
  return (
    <section
      data-testid="refusal-summary"
      aria-label="Refused registrations in the last hour"
      className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm dark:border-amber-900/60 dark:bg-amber-950/30"
    >
      {only ? (
        <p className="font-medium">
          {count(s.refused)} refused from {address(only.sourceAddress)} in the last hour.
        </p>
      ) : (
        <>
          <p className="font-medium">
            {count(s.refused)} refused from {count(s.sources)} addresses in the last hour; the most from:
          </p>
          <ol className="mt-1.5 space-y-0.5 text-slate-700 dark:text-slate-300" aria-label="Addresses with the most refusals">
            {s.topSources.map((t) => (
              <li key={t.sourceAddress ?? ""} className="tabular-nums">
                {count(t.refused)} from {address(t.sourceAddress)}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
