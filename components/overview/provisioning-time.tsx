"use client";

import Link from "next/link";
import type { Overview } from "@/lib/client/overview";
import { Badge } from "@/components/ui/badge";
import { formatDuration } from "@/components/ui/format";
import { useNow } from "@/components/ui/relative-time";

const linkClass = "font-medium text-sky-700 hover:underline dark:text-sky-400";
const PROVISIONING_LIST = "/clusters?status=Provisioning";

/**
 * How long pre-created clusters took to register against the objective (those pre-created in the
 * window), and the clusters provisioning now, with those over the threshold named: a cluster stuck
 * since last week still shows, whatever the window. The 90th percentile is what meets or misses
 * the objective: a median under it hides the slow tenth a platform team is waiting on.
 */
export function ProvisioningTime({ provisioning: p }: { provisioning: Overview["provisioning"] }) {
  const objective = formatDuration(p.objectiveMinutes * 60_000);
  const threshold = formatDuration(p.thresholdMinutes * 60_000);
  if (p.registered === 0 && p.provisioning === 0) {
    return (
      <div className="space-y-2 text-sm text-slate-600 dark:text-slate-400" data-testid="provisioning-empty">
        <p>No cluster was pre-created in the last {p.windowHours} h, and none is provisioning now.</p>
        <p className="text-xs text-slate-500 dark:text-slate-400">
          A cluster pre-created in the console or by Cluster API is timed from then until its agent registers, against the{" "}
          {objective} objective.
        </p>
      </div>
    );
  }
  const meets = p.p90Ms !== null && p.p90Ms < p.objectiveMinutes * 60_000;
  return (
    <div className="space-y-5">
      <div data-testid="provisioning-times">
        {p.registered === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            No cluster pre-created in the last {p.windowHours} h has registered yet.
          </p>
        ) : (
          <>
            <dl className="grid grid-cols-3 gap-3">
              <Figure term="Median" ms={p.p50Ms} />
              <Figure term="90th percentile" ms={p.p90Ms} />
              <Figure term="Longest" ms={p.maxMs} />
            </dl>
            <div className="mt-2">
              {meets ? (
                <Badge tone="green">✓ 90th percentile under the {objective} objective</Badge>
              ) : (
                <Badge tone="red">✕ 90th percentile over the {objective} objective</Badge>
              )}
            </div>
            <p className="mt-2 text-sm text-slate-600 dark:text-slate-400" data-testid="provisioning-summary">
              <span className="font-medium tabular-nums text-slate-900 dark:text-slate-100">
                {p.registered.toLocaleString("en-US")}
              </span>{" "}
              pre-created in the last {p.windowHours} h registered,{" "}
              <span className="tabular-nums">{p.withinObjective.toLocaleString("en-US")}</span> in under {objective}.
            </p>
          </>
        )}
      </div>
      <StillProvisioning provisioning={p} threshold={threshold} />
    </div>
  );
}

function Figure({ term, ms }: { term: string; ms: number | null }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="mt-1 text-xl font-semibold tabular-nums">{ms === null ? "—" : formatDuration(ms)}</dd>
    </div>
  );
}

function StillProvisioning({ provisioning: p, threshold }: { provisioning: Overview["provisioning"]; threshold: string }) {
  const now = useNow();
  if (p.provisioning === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No cluster is provisioning now.</p>;
  return (
    <div className="space-y-2 text-sm" data-testid="provisioning-open">
      <p className="text-slate-600 dark:text-slate-400">
        <Link href={PROVISIONING_LIST} prefetch={false} className={linkClass}>
          <span className="tabular-nums">{p.provisioning.toLocaleString("en-US")}</span> provisioning now
        </Link>
        {", "}
        {p.overThreshold > 0 ? (
          <span className="font-medium text-rose-700 dark:text-rose-400" data-testid="provisioning-over">
            <span className="tabular-nums">{p.overThreshold.toLocaleString("en-US")}</span> for longer than the {threshold}{" "}
            threshold
          </span>
        ) : (
          <>none for longer than the {threshold} threshold</>
        )}
        .
      </p>
      {p.longestOverThreshold.length > 0 && (
        <ul className="-my-1 divide-y divide-slate-100 dark:divide-slate-800" aria-label="Provisioning the longest">
          {p.longestOverThreshold.map((c) => (
            <li key={c.id} className="flex items-baseline justify-between gap-3 py-1.5">
              <Link href={`/clusters/${c.id}`} prefetch={false} className={`min-w-0 [overflow-wrap:anywhere] ${linkClass}`}>
                {c.name}
              </Link>
              <span className="shrink-0 text-xs tabular-nums text-rose-700 dark:text-rose-400">
                for {formatDuration(now - Date.parse(c.since))}
              </span>
            </li>
          ))}
        </ul>
      )}
      {p.overThreshold > p.longestOverThreshold.length && (
        <Link href={PROVISIONING_LIST} prefetch={false} className={`inline-block ${linkClass}`}>
          See all {p.provisioning.toLocaleString("en-US")} provisioning →
        </Link>
      )}
    </div>
  );
}
