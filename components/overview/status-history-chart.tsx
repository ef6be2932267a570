"use client";

import { useMemo } from "react";
import { Area, AreaChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import { SAMPLED_STATUSES, type StatusSample } from "@/lib/contracts/fleet";
import { ChartFigure } from "@/components/ui/charts/chart-figure";
import { ChartTooltip } from "@/components/ui/charts/chart-tooltip";
import { STATUS_COLORS, axisProps, chartMargin, gridProps, lineCursor, timeAxisProps } from "@/components/ui/charts/chart-colors";
import { clockTime, describeHistory, historyRows } from "@/components/ui/charts/chart-data";

const SERIES = SAMPLED_STATUSES;
const HEIGHT = 200;

/** Clusters by status over time, stacked, from the once-a-minute fleet samples. */
export function StatusHistoryChart({ samples }: { samples: readonly StatusSample[] }) {
  const rows = useMemo(() => historyRows(samples), [samples]);
  // Stacked areas draw each series' line along the top of the stack: a series that is zero all
  // along would paint its colour over the total and suggest clusters that are not there.
  const series = useMemo(() => {
    const present = SERIES.filter((s) => rows.some((r) => r[s] > 0));
    return present.length ? present : (["Ready"] as const);
  }, [rows]);
  if (rows.length < 2) {
    return (
      <div
        style={{ height: HEIGHT + 24 }}
        className="flex flex-col items-center justify-center rounded-md border border-dashed border-slate-300 px-6 text-center dark:border-slate-700"
      >
        <p className="text-sm font-medium">The trend appears in a few minutes</p>
        <p className="mt-1 max-w-sm text-sm text-slate-600 dark:text-slate-400">
          The fleet is sampled once a minute; this chart needs at least two samples to draw a line.
        </p>
      </div>
    );
  }
  return (
    <div>
      <ChartFigure
        label="Clusters by status over the last 6 hours"
        description={describeHistory(rows)}
        height={HEIGHT}
        table={{
          head: ["Time", ...SERIES],
          // Every 15th sample keeps the table readable; the description has the extremes.
          rows: rows
            .filter((_, i) => i % 15 === 0 || i === rows.length - 1)
            .map((r) => [clockTime(r.t), ...SERIES.map((s) => String(r[s]))]),
        }}
      >
        <AreaChart responsive data={rows} margin={chartMargin} style={{ width: "100%", height: "100%" }}>
          <CartesianGrid {...gridProps} />
          <XAxis {...timeAxisProps(clockTime, 40)} />
          <YAxis width={40} allowDecimals={false} {...axisProps} />
          <Tooltip
            cursor={lineCursor}
            isAnimationActive={false}
            content={(p) => <ChartTooltip {...p} title={(t) => clockTime(Number(t))} value={(v) => v.toLocaleString()} />}
          />
          {series.map((s) => (
            <Area
              key={s}
              type="linear"
              dataKey={s}
              stackId="status"
              stroke={STATUS_COLORS[s]}
              fill={STATUS_COLORS[s]}
              fillOpacity={0.25}
              strokeWidth={1.5}
              isAnimationActive={false}
            />
          ))}
        </AreaChart>
      </ChartFigure>
      <ul aria-hidden className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
        {series.map((s) => (
          <li key={s} className="flex items-center gap-1.5">
            <span className="h-2 w-2 rounded-sm" style={{ background: STATUS_COLORS[s] }} />
            {s}
          </li>
        ))}
      </ul>
    </div>
  );
}
