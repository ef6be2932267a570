"use client";

import { useSyncExternalStore } from "react";

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

export function formatAgo(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

export function formatIn(ms: number): string {
  if (ms <= 0) return "expired";
  const s = Math.round(ms / 1000);
  if (s < 60) return `in ${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `in ${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `in ${h} h ${m % 60} min`;
  return `in ${Math.floor(h / 24)} d ${h % 24} h`;
}

/** "12 s ago", ticking live; `fallback` when there is no time (e.g. "no heartbeat yet"). */
export function RelativeTime({ iso, fallback = "never" }: { iso: string | null; fallback?: string }) {
  const current = useNow();
  if (!iso) return <span className="text-slate-500 dark:text-slate-400">{fallback}</span>;
  return (
    // The server renders with its own clock; the client corrects it on the first tick.
    <time dateTime={iso} title={new Date(iso).toLocaleString()} className="tabular-nums" suppressHydrationWarning>
      {formatAgo(current - Date.parse(iso))}
    </time>
  );
}
