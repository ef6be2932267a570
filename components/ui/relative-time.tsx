"use client";

import { useSyncExternalStore } from "react";
import { formatInstant, formatRelative, viewerTimeZone } from "@/lib/domain/time-format";

// One shared one-second clock for every "12 s ago" on the page, instead of a timer each.
const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | null = null;
function subscribe(fn: () => void) {
  listeners.add(fn);
  timer ??= setInterval(() => {
    now = Date.now();
    listeners.forEach((l) => l());
  }, 1000);
  return () => {
    listeners.delete(fn);
    if (!listeners.size && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

export function useNow(): number {
  return useSyncExternalStore(
    subscribe,
    () => now,
    () => now,
  );
}

/**
 * "12 s ago" (or "in 3 min"), ticking live, with the absolute time in the viewer's named zone as
 * its tooltip; `fallback` when there is no time (e.g. "no heartbeat yet").
 */
export function RelativeTime({ iso, fallback = "never" }: { iso: string | null; fallback?: string }) {
  const current = useNow();
  if (!iso) return <span className="text-slate-500 dark:text-slate-400">{fallback}</span>;
  return (
    // The server renders with its own clock and zone; the client corrects both on the first tick.
    <time dateTime={iso} title={formatInstant(iso, viewerTimeZone())} className="tabular-nums" suppressHydrationWarning>
      {formatRelative(Date.parse(iso), current)}
    </time>
  );
}
