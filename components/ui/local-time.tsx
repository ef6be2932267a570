"use client";

import { useSyncExternalStore, type ReactNode } from "react";
import { formatInstant, viewerTimeZone, type InstantPart } from "@/lib/domain/time-format";

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

const PLACEHOLDER: Record<InstantPart, string> = {
  time: "00:00:00",
  minute: "00:00",
  date: "0000-00-00",
  datetime: "0000-00-00 00:00:00 UTC",
};

/**
 * An instant in the one absolute format, in the viewer's zone ("2026-12-01 08:14:03 Europe/Berlin";
 * `format` picks a part of it), with the full form as its tooltip; an invisible placeholder of
 * about the same width until hydrated.
 */
export function LocalTime({ iso, format = "time" }: { iso: string; format?: InstantPart }) {
  const hydrated = useHydrated();
  const zone = hydrated ? viewerTimeZone() : "UTC";
  return (
    <time dateTime={iso} title={hydrated ? formatInstant(iso, zone) : undefined} className="tabular-nums">
      {hydrated ? formatInstant(iso, zone, format) : <span className="invisible">{PLACEHOLDER[format]}</span>}
    </time>
  );
}

/** Renders `children` once hydrated (live clocks, charts described with times), else `placeholder`. */
export function AfterHydration({ children, placeholder = null }: { children: ReactNode; placeholder?: ReactNode }) {
  return useHydrated() ? children : placeholder;
}
