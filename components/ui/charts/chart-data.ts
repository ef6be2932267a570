// Pure shaping of API series into chart rows and into the words that describe a chart to people
// who cannot see it. No React here, so it is unit-tested (tests/unit/client/charts.test.ts).

import { SAMPLED_STATUSES, type StatusSample } from "@/lib/contracts/fleet";
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

export type HistoryRow = { t: number } & Omit<StatusSample, "at">;

export function historyRows(samples: readonly StatusSample[]): HistoryRow[] {
  return samples.map((s) => ({
    t: Date.parse(s.at),
    ...(Object.fromEntries(SAMPLED_STATUSES.map((k) => [k, s[k]])) as Omit<StatusSample, "at">),
  }));
}

export function describeHistory(rows: readonly HistoryRow[]): string {
  if (rows.length < 2) return "Not enough samples yet to show a trend.";
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  const peak = Math.max(...rows.map((r) => r.NotReady));
  return (
    `Clusters by status from ${clockTime(first.t)} to ${clockTime(last.t)}: ` +
    `Ready ${first.Ready} → ${last.Ready}, NotReady ${first.NotReady} → ${last.NotReady} (peak ${peak}).`
  );
}

export type TimelineBar = {
  t: number;
  /** heartbeats in the minute; null before the cluster existed (not a gap) */
  count: number | null;
  /** a full-height marker for a minute with no heartbeat, so gaps stand out */
  gap: number | null;
};

/**
 * Per-minute bars for the heartbeat timeline. A minute with no heartbeat after registration is a
 * gap; minutes before registration (and the current, still-filling minute) are neither.
 */
export function timelineBars(
  items: readonly { at: string; count: number }[],
  expectedPerBucket: number,
  registeredAt: string | null,
  now = Date.now(),
): TimelineBar[] {
  const since = registeredAt ? Math.floor(Date.parse(registeredAt) / MINUTE) * MINUTE : -Infinity;
  const currentMinute = Math.floor(now / MINUTE) * MINUTE;
  const marker = Math.max(1, expectedPerBucket);
  const bars = items.map((m): TimelineBar => {
    const t = Date.parse(m.at);
    if (t < since) return { t, count: null, gap: null };
    const open = t >= currentMinute;
    return { t, count: m.count, gap: m.count === 0 && !open ? marker : null };
  });
  // A young cluster's timeline starts at its registration (with a floor of MIN_BARS minutes),
  // rather than hours of "not registered yet" squeezing its bars into a sliver.
  const first = bars.findIndex((b) => b.count !== null);
  const start = first < 0 ? Math.max(0, bars.length - MIN_BARS) : Math.max(0, Math.min(first, bars.length - MIN_BARS));
  return bars.slice(start);
}

export const MIN_BARS = 30;

export type TimelineSummary = { minutes: number; gapMinutes: number; longestGap: number; longestGapEnd: number | null };

export function summarizeTimeline(bars: readonly TimelineBar[]): TimelineSummary {
  let minutes = 0;
  let gapMinutes = 0;
  let run = 0;
  let longestGap = 0;
  let longestGapEnd: number | null = null;
  for (const b of bars) {
    if (b.count === null) continue;
    minutes++;
    if (b.gap !== null) {
      gapMinutes++;
      run++;
      if (run > longestGap) {
        longestGap = run;
        longestGapEnd = b.t;
      }
    } else run = 0;
  }
  return { minutes, gapMinutes, longestGap, longestGapEnd };
}

export function describeTimeline(s: TimelineSummary, expectedPerBucket: number): string {
  if (s.minutes === 0) return "No heartbeat history yet.";
  const expected = `about ${Math.round(expectedPerBucket * 10) / 10} expected per minute`;
  if (s.gapMinutes === 0) return `Heartbeats in every one of the last ${s.minutes} minutes (${expected}).`;
  return (
    `${s.gapMinutes} of the last ${s.minutes} minutes had no heartbeat (${expected}); ` +
    `the longest gap was ${s.longestGap} min, ending ${clockTime(s.longestGapEnd!)}.`
  );
}
