"use client";

import Link from "next/link";
import type { Overview } from "@/lib/client/overview";
import { Card } from "@/components/ui/card";
import { LocalTime } from "@/components/ui/local-time";

/**
 * Clusters an operator snoozed: left out of the cards beside this one until the snooze ends, so
 * they are listed here, with who looks after them, rather than forgotten.
 */
export function SnoozedClusters({ total, items }: Overview["attention"]["snoozed"]) {
  return (
    <Card
      title="Snoozed"
      action={
        <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium tabular-nums text-slate-600 dark:bg-slate-800 dark:text-slate-300">
          {total}
        </span>
      }
      className="min-w-0"
    >
      <ul className="-my-2 divide-y divide-slate-100 dark:divide-slate-800" data-testid="snoozed-attention">
        {items.map((c) => (
          <li key={c.id} className="py-2 text-sm">
            <Link
              href={`/clusters/${c.id}`}
              prefetch={false}
              className="block font-medium break-all text-sky-700 hover:underline dark:text-sky-400"
            >
              {c.name}
            </Link>
            <span className="block text-xs text-slate-600 dark:text-slate-400">
              {c.owner}, until <LocalTime iso={c.until} format="datetime" />
            </span>
            <span className="block text-xs break-words text-slate-600 dark:text-slate-400">{c.reason}</span>
          </li>
        ))}
      </ul>
      {total > items.length && (
        <Link
          href="/clusters?snoozed=true"
          prefetch={false}
          className="mt-3 inline-block text-sm font-medium text-sky-700 hover:underline dark:text-sky-400"
        >
          See all {total.toLocaleString("en-US")} →
        </Link>
      )}
    </Card>
  );
}
