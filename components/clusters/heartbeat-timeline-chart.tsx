"use client";

import { useMemo } from "react";
import { Bar, BarChart, CartesianGrid, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { ChartFigure } from "@/components/ui/charts/chart-figure";
import { GAP_COLOR, RATE_COLOR, REFERENCE_COLOR, axisProps, chartMargin, gridProps } from "@/components/ui/charts/chart-colors";
import {
  clockTime,
  describeTimeline,
  summarizeTimeline,
  timelineBars,
  type TimelineBar,
} from "@/components/ui/charts/chart-data";

/**
 * One bar per minute of one cluster's heartbeats. A minute without any is drawn as a faint red
 * column so gaps are visible at a glance; the dashed line is what the interval should produce.
 */
export function HeartbeatTimelineChart({
  items,
  expectedPerBucket,
  registeredAt,
}: {
  items: readonly { at: string; count: number }[];
  expectedPerBucket: number;
  registeredAt: string | null;
}) {
  const bars = useMemo(() => timelineBars(items, expectedPerBucket, registeredAt), [items, expectedPerBucket, registeredAt]);
  const summary = useMemo(() => summarizeTimeline(bars), [bars]);
  const top = Math.max(expectedPerBucket * 1.25, ...bars.map((b) => b.count ?? 0), 1);
  return (
    <div>
      <ChartFigure
        label={`Heartbeats per minute, ${spanText(bars)}`}
        description={describeTimeline(summary, expectedPerBucket)}
        height={180}
      >
        <BarChart
          responsive
          data={bars}
          barCategoryGap={0}
          barGap={0}
          margin={chartMargin}
          style={{ width: "100%", height: "100%" }}
        >
          <CartesianGrid {...gridProps} />
          <XAxis dataKey="t" tickFormatter={(t: number) => clockTime(t)} minTickGap={48} {...axisProps} />
          <YAxis width={32} allowDecimals={false} domain={[0, Math.ceil(top)]} {...axisProps} />
          <Tooltip
            cursor={{ fill: "currentColor", fillOpacity: 0.08 }}
            isAnimationActive={false}
            content={(p) => <MinuteTooltip {...p} />}
          />
          <Bar dataKey="count" name="Heartbeats" stackId="m" fill={RATE_COLOR} isAnimationActive={false} />
          <Bar dataKey="gap" name="No heartbeat" stackId="m" fill={GAP_COLOR} fillOpacity={0.3} isAnimationActive={false} />
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
          No heartbeat
        </li>
        <li className="flex items-center gap-1.5">
          <span aria-hidden className="w-3 border-t-2 border-dashed" style={{ borderColor: REFERENCE_COLOR }} />
          Expected ({Math.round(expectedPerBucket * 10) / 10} per minute)
        </li>
        <li className="ml-auto tabular-nums">
          {spanText(bars)} ·{" "}
          {summary.gapMinutes === 0
            ? "No gaps"
            : `${summary.gapMinutes} min without heartbeats · longest ${summary.longestGap} min`}
        </li>
      </ul>
    </div>
  );
}

/** "last 6 h" or "last 42 min": what the bars cover once a young cluster's timeline is cropped. */
function spanText(bars: readonly TimelineBar[]): string {
  const minutes = bars.length;
  return minutes >= 120 ? `last ${Math.round(minutes / 60)} h` : `last ${minutes} min`;
}

function MinuteTooltip({ active, payload }: { active?: boolean; payload?: readonly { payload?: unknown }[] }) {
  const bar = payload?.[0]?.payload as TimelineBar | undefined;
  if (!active || !bar) return null;
  const text =
    bar.count === null
      ? "not registered yet"
      : bar.gap !== null
        ? "no heartbeat"
        : `${bar.count} heartbeat${bar.count === 1 ? "" : "s"}`;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-lg dark:border-slate-700 dark:bg-slate-900">
      <p className="font-medium text-slate-900 dark:text-slate-100">{clockTime(bar.t)}</p>
      <p className={bar.gap !== null ? "text-rose-600 dark:text-rose-400" : "text-slate-600 dark:text-slate-300"}>{text}</p>
    </div>
  );
}
