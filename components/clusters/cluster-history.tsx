"use client";

import { useState } from "react";
import type { ClusterEvent } from "@/lib/client/clusters";
import { CLUSTER_STATUSES } from "@/lib/domain/status";
import { StatusBadge } from "@/components/ui/status-badge";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";
import { LocalTime } from "@/components/ui/local-time";

const FIRST = 8;
const STATUSES = new Set<string>(CLUSTER_STATUSES);

function Value({ kind, value }: { kind: string; value: string }) {
  if (kind === "status" && STATUSES.has(value)) return <StatusBadge status={value} />;
  return <span className="font-medium">{value}</span>;
}

/** Status transitions and lifecycle milestones, newest first, each with its reason. */
export function ClusterHistory({ events }: { events: readonly ClusterEvent[] }) {
  const [all, setAll] = useState(false);
  if (events.length === 0)
    return <p className="text-sm text-slate-600 dark:text-slate-400">Nothing has happened to this cluster yet.</p>;
  const shown = all ? events : events.slice(0, FIRST);
  return (
    <div>
      <ol
        className="relative space-y-4 border-l border-slate-200 pl-5 dark:border-slate-800"
        aria-label="Status history, newest first"
      >
        {shown.map((e, i) => (
          <li key={`${e.at}-${e.kind}-${i}`} className="relative">
            <span
              aria-hidden
              className="absolute top-1.5 -left-[25px] h-2.5 w-2.5 rounded-full border-2 border-white bg-slate-400 dark:border-slate-900"
            />
            <div className="flex flex-wrap items-center gap-2 text-sm">
              <Badge>{e.kind}</Badge>
              {e.from && (
                <>
                  <Value kind={e.kind} value={e.from} />
                  <span aria-label="to" className="text-slate-500 dark:text-slate-400">
                    →
                  </span>
                </>
              )}
              <Value kind={e.kind} value={e.to} />
              <span className="ml-auto text-xs whitespace-nowrap text-slate-500 tabular-nums dark:text-slate-400">
                <RelativeTime iso={e.at} /> · <LocalTime iso={e.at} format="datetime" />
              </span>
            </div>
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{e.reason}</p>
          </li>
        ))}
      </ol>
      {events.length > FIRST && (
        <Button variant="ghost" className="mt-3" onClick={() => setAll((a) => !a)} aria-expanded={all}>
          {all ? "Show fewer" : `Show all ${events.length}`}
        </Button>
      )}
    </div>
  );
}
