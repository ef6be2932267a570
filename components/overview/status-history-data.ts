// The Overview's status history as chart rows: one row per minute from the first sample to the
// last, a minute without a sample (no instance was running) left empty so the lines break there
// instead of drawing a straight line across an outage. Pure, unit-tested.
import type { StatusSample } from "@/lib/contracts/fleet";
import { clockTime } from "@/components/ui/charts/chart-data";

const MINUTE = 60_000;

/** The statuses that mean trouble, drawn as lines on their own axis (Ready would flatten them). */
export const TROUBLE_STATUSES = ["NotReady", "Pending", "Draining"] as const;
export type TroubleStatus = (typeof TROUBLE_STATUSES)[number];

export type MinuteRow = {
  t: number;
  Ready: number | null;
  NotReady: number | null;
  Pending: number | null;
  Draining: number | null;
};

export function minuteRows(samples: readonly StatusSample[]): MinuteRow[] {
  if (samples.length === 0) return [];
  const byMinute = new Map(samples.map((s) => [Math.floor(Date.parse(s.at) / MINUTE) * MINUTE, s]));
  const minutes = [...byMinute.keys()].sort((a, b) => a - b);
  const first = minutes[0]!;
  const last = minutes[minutes.length - 1]!;
  const rows: MinuteRow[] = [];
  for (let t = first; t <= last; t += MINUTE) {
    const s = byMinute.get(t);
    rows.push({
      t,
      Ready: s?.Ready ?? null,
      NotReady: s?.NotReady ?? null,
      Pending: s?.Pending ?? null,
      Draining: s?.Draining ?? null,
    });
  }
  return rows;
}

const sampled = (rows: readonly MinuteRow[]) => rows.filter((r) => r.Ready !== null);

/** Sentences for assistive technology: the window, the latest counts, each trouble status's peak. */
export function describeStatusHistory(rows: readonly MinuteRow[]): string {
  const present = sampled(rows);
  if (present.length < 2) return "Not enough samples yet to show a trend.";
  const first = present[0]!;
  const last = present[present.length - 1]!;
  const missing = rows.length - present.length;
  const peaks = TROUBLE_STATUSES.map((s) => {
    const peak = Math.max(...present.map((r) => r[s] ?? 0));
    return `${s} ${last[s]} now, peak ${peak}`;
  });
  return (
    `One point a minute from ${clockTime(first.t)} to ${clockTime(last.t)}` +
    (missing ? ` (${missing} minute${missing === 1 ? "" : "s"} without a sample)` : "") +
    `. ${peaks.join("; ")}. Ready ${first.Ready} → ${last.Ready}.`
  );
}

/** The minutes where any count changed (and the first and last): the table stays short and loses nothing. */
export function changeRows(rows: readonly MinuteRow[]): MinuteRow[] {
  const present = sampled(rows);
  return present.filter((r, i) => {
    if (i === 0 || i === present.length - 1) return true;
    const prev = present[i - 1]!;
    return r.Ready !== prev.Ready || TROUBLE_STATUSES.some((s) => r[s] !== prev[s]);
  });
}
