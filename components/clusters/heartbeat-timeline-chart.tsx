"use client";

import { useMemo } from "react";
import { Bar, BarChart, CartesianGrid, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { ChartFigure } from "@/components/ui/charts/chart-figure";
import { GAP_COLOR, RATE_COLOR, REFERENCE_COLOR, axisProps, chartMargin, gridProps } from "@/components/ui/charts/chart-colors";
import { clockTime } from "@/components/ui/charts/chart-data";
import { gapSummaryText, notReadyBands, type GapBar, type GapSummary } from "@/lib/domain/heartbeat-gaps";

// NotReady minutes are shaded in amber behind the bars; gap minutes get a faint red column.
const NOT_READY_COLOR = "#f59e0b";

/**
 * One bar per minute of one cluster's heartbeats. A gap minute (none, fewer than expected, or
 * NotReady) is topped up with a faint red column to what was expected, so gaps are visible at a
 * glance; NotReady spans are shaded; the dashed line is what the interval should produce.
 */
export function HeartbeatTimelineChart({
  bars,
  summary,
  expectedPerBucket,
}: {
  bars: readonly GapBar[];
  summary: GapSummary;
  expectedPerBucket: number;
}) {
  const bands = notReadyBands(bars);
  // Headroom above the tallest bar, so a NotReady minute's shading shows even over a full bar.
  const top = Math.ceil(Math.max(expectedPerBucket, ...bars.map((b) => (b.count ?? 0) + (b.gap ?? 0)), 1) * 1.25);
  // NotReady minutes get a full-height column behind the bars, drawn on a hidden axis of their own
  // so it spans the whole minute (even a single one) instead of sharing it with the bars.
  const rows = useMemo(() => bars.map((b) => ({ ...b, shade: b.why === "notReady" ? top : null })), [bars, top]);
  return (
    <div data-testid="heartbeat-timeline" data-gaps={summary.gaps} data-not-ready-bands={bands.length}>
      <ChartFigure
        label={`Heartbeats per minute, ${spanText(bars)}`}
        description={describeGaps(summary, bands.length, expectedPerBucket)}
        height={180}
      >
        <BarChart
          responsive
          data={rows}
          barCategoryGap={0}
          barGap={0}
          margin={chartMargin}
          style={{ width: "100%", height: "100%" }}
        >
          <CartesianGrid {...gridProps} />
          <XAxis dataKey="t" tickFormatter={(t: number) => clockTime(t)} minTickGap={48} {...axisProps} />
          <XAxis xAxisId="shade" dataKey="t" hide />
          <YAxis width={32} allowDecimals={false} domain={[0, top]} {...axisProps} />
          <Bar
            xAxisId="shade"
            dataKey="shade"
            name="NotReady"
            className="not-ready-shade"
            fill={NOT_READY_COLOR}
            fillOpacity={0.22}
            isAnimationActive={false}
          />
          <Tooltip
            cursor={{ fill: "currentColor", fillOpacity: 0.08 }}
            isAnimationActive={false}
            content={(p) => <MinuteTooltip {...p} />}
          />
          <Bar dataKey="count" name="Heartbeats" stackId="m" fill={RATE_COLOR} isAnimationActive={false} />
          <Bar dataKey="gap" name="Missing heartbeats" stackId="m" fill={GAP_COLOR} fillOpacity={0.3} isAnimationActive={false} />
          <ReferenceLine y={expectedPerBucket} stroke={REFERENCE_COLOR} strokeDasharray="4 3" ifOverflow="extendDomain" />
        </BarChart>
      </ChartFigure>
      <ul className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
        <li className="flex items-center gap-1.5">
          <span aria-hidden className="h-2 w-2 rounded-sm" style={{ background: RATE_COLOR }} />
          Heartbeats in the minute
        </li>
        <li className="flex items-center gap-1.5">
          <span aria-hidden className="h-2 w-2 rounded-sm opacity-40" style={{ background: GAP_COLOR }} />
          Missing (a gap)
        </li>
        <li className="flex items-center gap-1.5">
          <span aria-hidden className="h-2 w-3 rounded-sm opacity-40" style={{ background: NOT_READY_COLOR }} />
          NotReady
        </li>
        <li className="flex items-center gap-1.5">
          <span aria-hidden className="w-3 border-t-2 border-dashed" style={{ borderColor: REFERENCE_COLOR }} />
          Expected ({Math.round(expectedPerBucket * 10) / 10} per minute)
        </li>
        <li className="ml-auto tabular-nums" data-testid="heartbeat-gap-legend">
          {spanText(bars)} · {gapSummaryText(summary)}
        </li>
      </ul>
    </div>
  );
}

/** "last 6 h" or "last 42 min": what the bars cover once a young cluster's timeline is cropped. */
function spanText(bars: readonly GapBar[]): string {
  const minutes = bars.length;
  return minutes >= 120 ? `last ${Math.round(minutes / 60)} h` : `last ${minutes} min`;
}

function describeGaps(s: GapSummary, notReadySpans: number, expectedPerBucket: number): string {
  if (s.minutes === 0) return "No heartbeat history yet.";
  const expected = `about ${Math.round(expectedPerBucket * 10) / 10} expected per minute`;
  const notReady = notReadySpans ? ` The cluster was NotReady in ${notReadySpans} span${notReadySpans === 1 ? "" : "s"}.` : "";
  if (s.gaps === 0)
    return `No gaps: heartbeats as expected in every one of the last ${s.minutes} minutes (${expected}).${notReady}`;
  return (
    `${gapSummaryText(s)}: ${s.gapMinutes} of the last ${s.minutes} minutes had missing heartbeats or the cluster NotReady ` +
    `(${expected}); ${s.ongoing > 0 && s.ongoing >= s.longestGap ? "the gap has not ended" : `the longest gap ended ${clockTime(s.longestGapEnd!)}`}.${notReady}`
  );
}

const WHY: Record<NonNullable<GapBar["why"]>, string> = {
  none: "no heartbeat",
  short: "fewer heartbeats than expected",
  notReady: "cluster NotReady",
};

function MinuteTooltip({ active, payload }: { active?: boolean; payload?: readonly { payload?: unknown }[] }) {
  const bar = payload?.[0]?.payload as GapBar | undefined;
  if (!active || !bar) return null;
  const count = bar.count === null ? "not registered yet" : `${bar.count} heartbeat${bar.count === 1 ? "" : "s"}`;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-lg dark:border-slate-700 dark:bg-slate-900">
      <p className="font-medium text-slate-900 dark:text-slate-100">{clockTime(bar.t)}</p>
      <p className="text-slate-600 dark:text-slate-300">{count}</p>
      {bar.why && <p className="text-rose-600 dark:text-rose-400">Gap: {WHY[bar.why]}</p>}
    </div>
  );
}
