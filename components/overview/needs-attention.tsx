"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import type { Overview } from "@/lib/client/overview";
import { Card } from "@/components/ui/card";
import { SnoozedClusters } from "./snoozed-clusters";
import { useNow } from "@/components/ui/relative-time";
import { daysUntil, formatDuration, shortHex } from "@/components/ui/format";
import { formatAgo, formatIn, formatInstant, viewerTimeZone } from "@/lib/domain/time-format";

// Names wrap (anywhere, as long generated names must) rather than being cut: a name is what a reader looks for.
const linkClass = "font-medium text-sky-700 [overflow-wrap:anywhere] hover:underline dark:text-sky-400";

/**
 * Clusters someone should look at: longest NotReady, certificates about to expire, missing labels,
 * and (only when there are any) Kubernetes clusters registered twice.
 */
export function NeedsAttention({ attention, notReadyTotal }: { attention: Overview["attention"]; notReadyTotal: number }) {
  return (
    <section aria-labelledby="attention-heading">
      <h2 id="attention-heading" className="mb-3 text-sm font-semibold">
        Needs attention
      </h2>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
        <NotReadyLongest items={attention.notReadyLongest} total={notReadyTotal} />
        <ExpiringCertificates items={attention.certificatesExpiring} />
        <MissingLabels items={attention.missingLabels} />
        {attention.sameCluster.total > 0 && <SameCluster {...attention.sameCluster} />}
        {attention.snoozed.total > 0 && <SnoozedClusters {...attention.snoozed} />}
      </div>
    </section>
  );
}

function AttentionCard({ title, count, children }: { title: string; count: number; children: ReactNode }) {
  return (
    <Card
      title={title}
      action={
        <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium tabular-nums text-slate-600 dark:bg-slate-800 dark:text-slate-300">
          {count}
        </span>
      }
      className="min-w-0"
    >
      {children}
    </Card>
  );
}

function AllClear({ children }: { children: ReactNode }) {
  return (
    <p className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
      <span aria-hidden className="text-emerald-600 dark:text-emerald-400">
        ✓
      </span>
      {children}
    </p>
  );
}

function NotReadyLongest({ items, total }: { items: Overview["attention"]["notReadyLongest"]; total: number }) {
  const now = useNow();
  return (
    <AttentionCard title="NotReady the longest" count={Math.max(total, items.length)}>
      {items.length === 0 ? (
        <AllClear>No cluster is NotReady.</AllClear>
      ) : (
        <ul className="-my-2 divide-y divide-slate-100 dark:divide-slate-800">
          {items.map((c) => (
            <li key={c.id} className="flex items-baseline justify-between gap-3 py-2 text-sm">
              <span className="min-w-0">
                <Link href={`/clusters/${c.id}`} prefetch={false} className={`block ${linkClass}`}>
                  {c.name}
                </Link>
                <span className="text-xs text-slate-500 dark:text-slate-400">{c.reason}</span>
              </span>
              <span className="shrink-0 text-right text-xs tabular-nums text-rose-700 dark:text-rose-400">
                for {formatDuration(now - Date.parse(c.since))}
              </span>
            </li>
          ))}
        </ul>
      )}
      {total > items.length && (
        <Link
          href="/clusters?status=NotReady"
          prefetch={false}
          className="mt-3 inline-block text-sm font-medium text-sky-700 hover:underline dark:text-sky-400"
        >
          See all {total.toLocaleString("en-US")} NotReady clusters →
        </Link>
      )}
    </AttentionCard>
  );
}

function ExpiringCertificates({ items }: { items: Overview["attention"]["certificatesExpiring"] }) {
  const now = useNow();
  return (
    <AttentionCard title="Certificates expiring soon" count={items.length}>
      {items.length === 0 ? (
        <AllClear>No certificate expires within 7 days.</AllClear>
      ) : (
        <ul className="-my-2 divide-y divide-slate-100 dark:divide-slate-800">
          {items.map((c) => {
            const left = Date.parse(c.notAfter) - now;
            const days = daysUntil(c.notAfter, now);
            return (
              <li key={c.serial} className="flex items-baseline justify-between gap-3 py-2 text-sm">
                <span className="min-w-0">
                  <Link href={`/clusters/${c.id}`} prefetch={false} className={`block ${linkClass}`}>
                    {c.name}
                  </Link>
                  <span className="font-mono text-xs text-slate-500 dark:text-slate-400" title={c.serial}>
                    {shortHex(c.serial)}
                  </span>
                </span>
                <time
                  dateTime={c.notAfter}
                  title={formatInstant(c.notAfter, viewerTimeZone())}
                  className={`shrink-0 text-xs tabular-nums ${left <= 0 || days < 2 ? "text-rose-700 dark:text-rose-400" : "text-amber-700 dark:text-amber-400"}`}
                >
                  {left <= 0 ? `expired ${formatAgo(-left)}` : formatIn(left)}
                </time>
              </li>
            );
          })}
        </ul>
      )}
    </AttentionCard>
  );
}

function MissingLabels({ items }: { items: Overview["attention"]["missingLabels"] }) {
  return (
    <AttentionCard title="Missing required labels" count={items.length}>
      {items.length === 0 ? (
        <AllClear>Every cluster has the required labels.</AllClear>
      ) : (
        <ul className="-my-2 divide-y divide-slate-100 dark:divide-slate-800">
          {items.map((c) => (
            <li key={c.id} className="flex items-baseline justify-between gap-3 py-2 text-sm">
              <Link href={`/clusters/${c.id}`} prefetch={false} className={`min-w-0 ${linkClass}`}>
                {c.name}
              </Link>
              <span className="flex shrink-0 flex-wrap justify-end gap-1">
                {c.missing.map((k) => (
                  <code
                    key={k}
                    className="rounded bg-amber-50 px-1.5 py-0.5 text-xs text-amber-800 ring-1 ring-inset ring-amber-200 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-900"
                  >
                    {k}
                  </code>
                ))}
              </span>
            </li>
          ))}
        </ul>
      )}
    </AttentionCard>
  );
}

function SameCluster({ total, items }: Overview["attention"]["sameCluster"]) {
  return (
    <AttentionCard title="Registered twice" count={total}>
      <ul className="-my-2 divide-y divide-slate-100 dark:divide-slate-800" data-testid="same-cluster-attention">
        {items.map((c) => (
          <li key={c.id} className="py-2 text-sm">
            <Link href={`/clusters/${c.id}`} prefetch={false} className={`block ${linkClass}`}>
              {c.name}
            </Link>
            <span className="text-xs text-slate-500 dark:text-slate-400">
              {/* A team member is told the names of their own clusters only. */}
              Same cluster as {c.sameAs.length ? c.sameAs.map((o) => o.name).join(", ") : "a cluster outside your teams"}
            </span>
          </li>
        ))}
      </ul>
      {total > items.length && (
        <Link
          href="/clusters?duplicateUid=true"
          prefetch={false}
          className="mt-3 inline-block text-sm font-medium text-sky-700 hover:underline dark:text-sky-400"
        >
          See all {total.toLocaleString("en-US")} →
        </Link>
      )}
    </AttentionCard>
  );
}
