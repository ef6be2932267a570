"use client";

import { createContext, useContext, useSyncExternalStore, type ReactNode } from "react";
import { useHydrated } from "@/components/ui/local-time";
import { formatInstant, formatRelative, viewerTimeZone } from "@/lib/domain/time-format";

// The instant the server rendered the page at, handed to the browser with it: the server renders
// every "12 s ago" against it, and the browser hydrates against the same instant (so both print
// the same text), then switches to its own ticking clock.
const RenderedAt = createContext<number | null>(null);

/** Renders `children` (a console page) against `now`, the instant its data was read on the server. */
export function NowProvider({ now, children }: { now: number; children?: ReactNode }) {
  return <RenderedAt value={now}>{children}</RenderedAt>;
}

// One shared one-second clock for every "12 s ago" on the page, instead of a timer each.
const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | null = null;
function subscribe(fn: () => void) {
  listeners.add(fn);
  if (!timer) {
    // Idle since the last subscriber left (or since the module loaded): catch up at once; React
    // re-renders the subscriber when the value it rendered with is now stale.
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      listeners.forEach((l) => l());
    }, 1000);
  }
  return () => {
    listeners.delete(fn);
    if (!listeners.size && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/**
 * The current time in ms, ticking each second in the browser. On the server and while hydrating it
 * is the page's render instant (NowProvider); outside one the server reads its clock per render,
 * never a value kept from when this module loaded.
 */
export function useNow(): number {
  const renderedAt = useContext(RenderedAt);
  return useSyncExternalStore(
    subscribe,
    () => now,
    () => renderedAt ?? (typeof window === "undefined" ? Date.now() : now),
  );
}

/**
 * "12 s ago" (or "in 3 min"), ticking live, with the absolute time in the viewer's named zone as
 * its tooltip; `fallback` when there is no time (e.g. "no heartbeat yet").
 */
export function RelativeTime({ iso, fallback = "never" }: { iso: string | null; fallback?: string }) {
  const current = useNow();
  // The tooltip names the viewer's zone, which the server does not know: added once hydrated.
  const hydrated = useHydrated();
  if (!iso) return <span className="text-slate-500 dark:text-slate-400">{fallback}</span>;
  return (
    <time dateTime={iso} title={hydrated ? formatInstant(iso, viewerTimeZone()) : undefined} className="tabular-nums">
      {formatRelative(Date.parse(iso), current)}
    </time>
  );
}
