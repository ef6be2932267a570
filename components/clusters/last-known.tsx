"use client";

import type { ReactNode } from "react";
import { formatAgo } from "@/components/ui/format";
import { LocalTime } from "@/components/ui/local-time";
import { useNow } from "@/components/ui/relative-time";

/**
 * "as of 14:02 (16 min ago)" for a card whose facts the agent reported before it went quiet
 * (ClusterDetail.factsAsOf); nothing while they are current.
 */
export function AsOfNote({ asOf }: { asOf: string | null }) {
  const now = useNow();
  if (!asOf) return null;
  return (
    <span className="text-xs text-slate-600 dark:text-slate-400" data-testid="as-of">
      as of <LocalTime iso={asOf} format="datetime" /> ({formatAgo(now - Date.parse(asOf))})
    </span>
  );
}

/**
 * Last-known facts, greyed while they are stale: a green "ok" from 16 minutes ago must not read as
 * health now. The words stay readable (no opacity); only colour goes.
 */
export function LastKnown({ asOf, children }: { asOf: string | null; children: ReactNode }) {
  if (!asOf) return <>{children}</>;
  return (
    <div className="grayscale" data-stale="true">
      <p className="sr-only">Last known facts, not current:</p>
      {children}
    </div>
  );
}
