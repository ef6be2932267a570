"use client";

import { useSyncExternalStore, type ReactNode } from "react";

// Pages whose first paint is rendered on the server with data (the wizard, a rollout) must not
// print clock times or "12 s ago" there: the server's time zone and instant differ from the
// browser's, and hydration would fail on the mismatch. These render such text once hydrated.

const noSubscription = () => () => {};

/** false on the server and during hydration, true afterwards. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

const FORMATS = {
  time: (d: Date) => d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false }),
  datetime: (d: Date) => d.toLocaleString(),
  date: (d: Date) => d.toLocaleDateString(),
} as const;
const PLACEHOLDER = { time: "00:00:00", datetime: "00/00/0000, 00:00:00", date: "00/00/0000" } as const;

/** A time in the viewer's zone; an invisible placeholder of about the same width until hydrated. */
export function LocalTime({ iso, format = "time" }: { iso: string; format?: keyof typeof FORMATS }) {
  const hydrated = useHydrated();
  return (
    <time dateTime={iso} title={hydrated ? new Date(iso).toLocaleString() : undefined} className="tabular-nums">
      {hydrated ? FORMATS[format](new Date(iso)) : <span className="invisible">{PLACEHOLDER[format]}</span>}
    </time>
  );
}

/** Renders `children` once hydrated (live clocks, charts described with times), else `placeholder`. */
export function AfterHydration({ children, placeholder = null }: { children: ReactNode; placeholder?: ReactNode }) {
  return useHydrated() ? children : placeholder;
}
