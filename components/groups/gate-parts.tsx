"use client";

import Link from "next/link";
import type { GateResult } from "@/lib/client/gate";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { RelativeTime } from "@/components/ui/relative-time";
import { StatCard } from "@/components/ui/stat-card";
import { StatusBadge } from "@/components/ui/status-badge";

/** Pass or fail as a pill: the word carries it, the colour only repeats it. */
export function GateBadge({ pass }: { pass: boolean }) {
  return <Badge tone={pass ? "green" : "red"}>{pass ? "Pass" : "Fail"}</Badge>;
}

export function GateVerdict({
  result,
  refreshing,
  onRefresh,
}: {
  result: GateResult;
  refreshing: boolean;
  onRefresh: () => void;
}) {
  return (
    <section
      aria-label="Verdict"
      className={`rounded-lg border px-5 py-4 ${result.pass ? "border-emerald-300 bg-emerald-50 dark:border-emerald-900 dark:bg-emerald-950/40" : "border-rose-300 bg-rose-50 dark:border-rose-900 dark:bg-rose-950/40"}`}
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="flex items-center gap-3 text-base font-semibold" data-testid="gate-verdict">
          <GateBadge pass={result.pass} />
          <span data-testid="gate-summary">{result.summary}</span>
        </p>
        <Button variant="secondary" className="h-8" onClick={onRefresh} disabled={refreshing}>
          {refreshing ? "Evaluating…" : "Evaluate again"}
        </Button>
      </div>
      <p className="mt-2 text-sm text-slate-700 dark:text-slate-300" data-testid="gate-tolerance">
        {result.tolerance.text}
        {result.ignored.text ? ` · ${result.ignored.text}` : ""} · evaluated <RelativeTime iso={result.evaluatedAt} />
      </p>
    </section>
  );
}

/** How the judged clusters stand: Ready, enrolled, failing; and how many were ignored. */
export function GateEnrollment({ result }: { result: GateResult }) {
  const judged = result.clusters.length;
  const ready = result.clusters.filter((c) => c.status === "Ready").length;
  const enrolled = result.clusters.filter((c) => c.enrolled).length;
  return (
    <div className="grid grid-cols-2 gap-4 lg:grid-cols-4" data-testid="gate-counts">
      <StatCard label="Judged" value={judged} testId="gate-judged" />
      <StatCard label="Ready" value={ready} tone={ready === judged ? "green" : "neutral"} testId="gate-ready" />
      <StatCard
        label="Enrolled"
        value={enrolled}
        tone={enrolled === judged ? "green" : "amber"}
        hint={`${judged - enrolled} blocked on enrollment`}
        testId="gate-enrolled"
      />
      <StatCard
        label="Failing"
        value={result.tolerance.unready}
        tone={result.tolerance.unready > result.tolerance.allowed ? "red" : "neutral"}
        hint={`${result.tolerance.allowed} allowed · ${result.ignored.clusters.length} ignored`}
        testId="gate-failing"
      />
    </div>
  );
}

/** The clusters that fail the gate and those it ignored, each with why. */
export function GateClusters({ result }: { result: GateResult }) {
  const failing = result.clusters.filter((c) => c.reasons.length);
  return (
    <>
      <Card title={`Failing clusters (${failing.length})`}>
        {failing.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Every judged cluster is registered, Active, Ready and enrolled.
          </p>
        ) : (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800" data-testid="gate-failing-list">
            {failing.map((c) => (
              <li key={c.id} className="flex flex-col gap-1 py-2 sm:flex-row sm:items-start sm:gap-4">
                <span className="flex min-w-0 items-center gap-2 sm:w-64">
                  <Link
                    href={`/clusters/${c.id}`}
                    className="truncate font-medium text-sky-700 hover:underline dark:text-sky-400"
                  >
                    {c.name}
                  </Link>
                  <StatusBadge status={c.status} />
                </span>
                <ul className="list-disc pl-5 text-sm text-slate-700 sm:flex-1 dark:text-slate-300">
                  {c.reasons.map((r) => (
                    <li key={r}>{r}</li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </Card>
      {result.ignored.clusters.length > 0 && (
        <Card title={`Ignored clusters (${result.ignored.clusters.length})`}>
          <p className="mb-2 text-sm text-slate-600 dark:text-slate-400">
            NotReady for longer than {result.ignored.longerThan}: left out of the target set.
          </p>
          <ul className="divide-y divide-slate-100 dark:divide-slate-800" data-testid="gate-ignored-list">
            {result.ignored.clusters.map((c) => (
              <li key={c.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <Link href={`/clusters/${c.id}`} className="font-medium text-sky-700 hover:underline dark:text-sky-400">
                  {c.name}
                </Link>
                <span className="text-slate-600 dark:text-slate-400">
                  NotReady since <RelativeTime iso={c.notReadySince} />
                </span>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </>
  );
}
