// What counts as a gap in one cluster's heartbeat timeline, and the one sentence that says so.
// Pure: the chart, its header and its screen-reader text all read the same result.

const MINUTE = 60_000;

/** A span the cluster was NotReady; `to` is null while it still is. */
export type NotReadyInterval = { from: number; to: number | null };

export type GapBar = {
  t: number;
  /** heartbeats in the minute; null before the cluster existed (not a gap) */
  count: number | null;
  /** the part of the minute's column that is missing (up to the expected count) when it is a gap */
  gap: number | null;
  /** why the minute is a gap: no heartbeat, fewer than expected, or the cluster was NotReady */
  why: "none" | "short" | "notReady" | null;
  /** the minute still filling was NotReady but the cluster has recovered since: the gap has ended */
  recovered?: true;
};

export type GapSummary = {
  /** minutes since registration in the window */
  minutes: number;
  gapMinutes: number;
  /** runs of consecutive gap minutes */
  gaps: number;
  longestGap: number;
  longestGapEnd: number | null;
  /** minutes of the gap still open at the newest minute; 0 when the cluster is heartbeating again */
  ongoing: number;
};

/** A young cluster's timeline starts at its registration, with at least this many minutes shown. */
export const MIN_BARS = 30;

/**
 * NotReady spans from status transitions (any order). A transition into NotReady opens a span, a
 * transition out of it closes it; a span still open ends now. When the cluster is NotReady now
 * but its opening transition is older than the events at hand, the span starts at `current.since`.
 * When it is Ready now but its recovery is not recorded yet (the sweeper records transitions a few
 * seconds late), the span is closed at `current.now`: it has ended, only when is not known yet.
 */
export function notReadyIntervals(
  events: readonly { kind: string; from: string | null; to: string; at: string }[],
  current: { status: string; since: string | null; now: number },
): NotReadyInterval[] {
  const transitions = events.filter((e) => e.kind === "status").sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const out: NotReadyInterval[] = [];
  let open: number | null = null;
  for (const [i, e] of transitions.entries()) {
    const at = Date.parse(e.at);
    if (e.to === "NotReady") {
      open ??= at;
    } else if (open !== null) {
      out.push({ from: open, to: at });
      open = null;
    } else if (e.from === "NotReady" && i === 0) {
      // Closed a span whose start fell outside the events we have: it covers everything before.
      out.push({ from: -Infinity, to: at });
    }
  }
  if (current.status === "NotReady") {
    const since = current.since ? Date.parse(current.since) : null;
    out.push({ from: open ?? since ?? -Infinity, to: null });
  } else if (open !== null) {
    out.push({ from: open, to: current.now });
  }
  return out;
}

/**
 * Heartbeats the fleet's interval lets a healthy minute be short by: jitter and the minute's edges
 * move one heartbeat to a neighbouring minute, so one fewer than expected is not a gap.
 */
export function isShortMinute(count: number, expectedPerBucket: number): boolean {
  return count === 0 || count < Math.floor(expectedPerBucket) - 1;
}

/**
 * Per-minute bars since registration. A minute is a gap when it had no heartbeat, fewer than the
 * interval should produce (see isShortMinute), or lies (even partly) in a NotReady span. Minutes
 * before registration are not counted; the registration minute and the one still filling at `now`
 * are gaps only when NotReady.
 */
export function heartbeatGapBars(
  items: readonly { at: string; count: number }[],
  expectedPerBucket: number,
  registeredAt: string | null,
  notReady: readonly NotReadyInterval[],
  now: number,
): GapBar[] {
  const since = registeredAt ? Math.floor(Date.parse(registeredAt) / MINUTE) * MINUTE : -Infinity;
  const currentMinute = Math.floor(now / MINUTE) * MINUTE;
  const full = Math.max(1, expectedPerBucket);
  const bars = items.map((m): GapBar => {
    const t = Date.parse(m.at);
    if (t < since) return { t, count: null, gap: null, why: null };
    const overlapping = notReady.filter((i) => i.from < t + MINUTE && (i.to === null ? now : i.to) > t);
    const inNotReady = overlapping.length > 0;
    // The registration minute and the minute still filling are partial: only NotReady makes them gaps.
    const open = t >= currentMinute || t === since;
    if (inNotReady && t >= currentMinute && overlapping.every((i) => i.to !== null))
      return { t, count: m.count, gap: Math.max(full - m.count, 0) || null, why: "notReady", recovered: true };
    const why = inNotReady
      ? "notReady"
      : open
        ? null
        : m.count === 0
          ? "none"
          : isShortMinute(m.count, expectedPerBucket)
            ? "short"
            : null;
    return { t, count: m.count, gap: why ? Math.max(full - m.count, 0) || null : null, why };
  });
  const first = bars.findIndex((b) => b.count !== null);
  const start = first < 0 ? Math.max(0, bars.length - MIN_BARS) : Math.max(0, Math.min(first, bars.length - MIN_BARS));
  return bars.slice(start);
}

export function summarizeGaps(bars: readonly GapBar[]): GapSummary {
  let minutes = 0;
  let gapMinutes = 0;
  let gaps = 0;
  let run = 0;
  let longestGap = 0;
  let longestGapEnd: number | null = null;
  for (const [i, b] of bars.entries()) {
    if (b.count === null) continue;
    minutes++;
    if (b.why !== null) {
      gapMinutes++;
      if (run === 0) gaps++;
      run++;
      if (run > longestGap) {
        longestGap = run;
        longestGapEnd = b.t;
      }
    } else if (!(i === bars.length - 1 && b.count === 0)) run = 0;
    // The minute still filling with no heartbeat yet neither ends a gap nor is one.
  }
  return { minutes, gapMinutes, gaps, longestGap, longestGapEnd, ongoing: bars.at(-1)?.recovered ? 0 : run };
}

/**
 * "No gaps", "2 gaps · longest 7 min", or while the newest gap has not ended "1 gap · gap ongoing,
 * 12 min so far": a gap still open is not over, however long it has lasted. The chart's header and
 * its legend say the same.
 */
export function gapSummaryText(s: GapSummary): string {
  if (s.minutes === 0) return "No heartbeat history yet";
  if (s.gaps === 0) return "No gaps";
  const count = `${s.gaps} gap${s.gaps === 1 ? "" : "s"}`;
  if (s.ongoing === 0) return `${count} · longest ${s.longestGap} min`;
  const longest = s.longestGap > s.ongoing ? ` · longest ${s.longestGap} min` : "";
  return `${count} · gap ongoing, ${s.ongoing} min so far${longest}`;
}

/** The NotReady spans as they fall on the bars: first and last minute of each (for shading). */
export function notReadyBands(bars: readonly GapBar[]): { x1: number; x2: number }[] {
  const out: { x1: number; x2: number }[] = [];
  let startAt: number | null = null;
  let last: number | null = null;
  for (const b of bars) {
    if (b.why === "notReady") {
      startAt ??= b.t;
      last = b.t;
    } else if (startAt !== null) {
      out.push({ x1: startAt, x2: last! });
      startAt = null;
    }
  }
  if (startAt !== null) out.push({ x1: startAt, x2: last! });
  return out;
}
