// Pure shaping of API series into chart rows and into the words that describe a chart to people
// who cannot see it. No React here, so it is unit-tested (tests/unit/client/charts.test.ts).

import { formatInstant, viewerTimeZone } from "@/lib/domain/time-format";

const MINUTE = 60_000;

/**
 * "14:05" in the viewer's time zone (a part of the one absolute format). One argument only: it
 * is handed to recharts as a tick formatter, which passes the tick's index second.
 */
export function clockTime(iso: string | number): string {
  return formatInstant(iso, viewerTimeZone(), "minute");
}

export type RatePoint = { t: number; perSecond: number };

/**
 * Per-minute heartbeat counts as heartbeats per second (count / 60), one decimal. The minute
 * still in progress at `now` is left out: its count is partial and would draw a false drop.
 */
export function perSecondSeries(minutes: readonly { at: string; count: number }[], now: number): RatePoint[] {
  return minutes
    .filter((m) => Date.parse(m.at) + MINUTE <= now)
    .map((m) => ({ t: Date.parse(m.at), perSecond: Math.round((m.count / 60) * 10) / 10 }));
}

/** One sentence: the latest rate and the range over the window. */
export function describeRate(points: readonly RatePoint[]): string {
  if (points.length === 0) return "No heartbeat data yet.";
  const values = points.map((p) => p.perSecond);
  const last = values[values.length - 1]!;
  return `Heartbeats per second over the last ${points.length} minutes: latest ${last}/s, lowest ${Math.min(...values)}/s, highest ${Math.max(...values)}/s.`;
}
