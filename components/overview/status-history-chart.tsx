"use client";

import { useMemo } from "react";
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { ChartFigure } from "@/components/ui/charts/chart-figure";
import { ChartTooltip } from "@/components/ui/charts/chart-tooltip";
import { STATUS_COLORS, axisProps, chartMargin, gridProps, lineCursor, timeAxisProps } from "@/components/ui/charts/chart-colors";
import { clockTime } from "@/components/ui/charts/chart-data";
import type { StatusSample } from "@/lib/contracts/fleet";
import { TROUBLE_STATUSES, changeRows, describeStatusHistory, minuteRows, type MinuteRow } from "./status-history-data";

const HEIGHT = 180;
const READY_HEIGHT = 72;

/**
 * Clusters by status over time from the once-a-minute fleet samples, one point a minute.
 * NotReady, Pending and Draining are lines on their own axis (never stacked: a small NotReady
 * count must not hide under another series); Ready, usually much larger, has its own small chart
 * and scale below.
 */
export function StatusHistoryChart({ samples }: { samples: readonly StatusSample[] }) {
  const rows = useMemo(() => minuteRows(samples), [samples]);
  const latest = useMemo(() => [...rows].reverse().find((r) => r.Ready !== null), [rows]);
  if (rows.filter((r) => r.Ready !== null).length < 2) {
    return (
      <div
        style={{ height: HEIGHT + READY_HEIGHT + 48 }}
        className="flex flex-col items-center justify-center rounded-md border border-dashed border-slate-300 px-6 text-center dark:border-slate-700"
      >
        <p className="text-sm font-medium">The trend appears in a few minutes</p>
        <p className="mt-1 max-w-sm text-sm text-slate-600 dark:text-slate-400">
          The fleet is sampled once a minute; this chart needs at least two samples to draw a line.
        </p>
      </div>
    );
  }
  const tooltip = (
    <Tooltip
      cursor={lineCursor}
      isAnimationActive={false}
      content={(p) => <ChartTooltip {...p} title={(t) => clockTime(Number(t))} value={(v) => v.toLocaleString("en-US")} />}
    />
  );
  return (
    <div data-testid="status-history" data-points={rows.length} data-resolution-seconds={60}>
      <ChartFigure
        label="Clusters by status over the last 6 hours, one point a minute"
        description={describeStatusHistory(rows)}
        height={HEIGHT}
        table={{
          head: ["Time", ...TROUBLE_STATUSES, "Ready"],
          rows: changeRows(rows).map((r) => [clockTime(r.t), ...TROUBLE_STATUSES.map((s) => String(r[s])), String(r.Ready)]),
        }}
      >
        <LineChart responsive data={rows} syncId="status-history" margin={chartMargin} style={{ width: "100%", height: "100%" }}>
          <CartesianGrid {...gridProps} />
          <XAxis {...timeAxisProps(clockTime, 40)} />
          <YAxis width={40} allowDecimals={false} domain={[0, (max: number) => Math.max(max, 4)]} {...axisProps} />
          {tooltip}
          {TROUBLE_STATUSES.map((s) => (
            <Line
              key={s}
              type="linear"
              dataKey={s}
              name={s}
              stroke={STATUS_COLORS[s]}
              strokeWidth={s === "NotReady" ? 2.25 : 1.5}
              strokeDasharray={s === "Pending" ? "4 3" : undefined}
              dot={false}
              activeDot={{ r: 3 }}
              isAnimationActive={false}
              className={`status-line-${s}`}
            />
          ))}
        </LineChart>
      </ChartFigure>
      <p className="mt-3 mb-1 text-xs font-medium text-slate-600 dark:text-slate-400">Ready (own scale)</p>
      {/* Its numbers are in the figure's description and table above: hidden from assistive technology, and not a tab stop. */}
      <div className="text-xs text-slate-500 dark:text-slate-400" style={{ height: READY_HEIGHT }} aria-hidden>
        <LineChart
          responsive
          accessibilityLayer={false}
          data={rows}
          syncId="status-history"
          margin={chartMargin}
          style={{ width: "100%", height: "100%" }}
        >
          <CartesianGrid {...gridProps} />
          <XAxis {...timeAxisProps(clockTime, 40)} hide />
          <YAxis width={40} allowDecimals={false} domain={["dataMin", "dataMax"]} tickCount={2} {...axisProps} />
          {tooltip}
          <Line
            type="linear"
            dataKey="Ready"
            name="Ready"
            stroke={STATUS_COLORS.Ready}
            strokeWidth={1.5}
            dot={false}
            isAnimationActive={false}
            className="status-line-Ready"
          />
        </LineChart>
      </div>
      <Legend latest={latest} />
    </div>
  );
}

/** The series with their latest counts; the colours and dash match the lines. */
function Legend({ latest }: { latest: MinuteRow | undefined }) {
  return (
    <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400" aria-label="Legend">
      {[...TROUBLE_STATUSES, "Ready" as const].map((s) => (
        <li key={s} className="flex items-center gap-1.5" data-testid={`legend-${s}`}>
          <span
            aria-hidden
            className="inline-block h-0 w-4 border-t-2"
            style={{ borderColor: STATUS_COLORS[s], borderTopStyle: s === "Pending" ? "dashed" : "solid" }}
          />
          {s}
          {latest && <span className="font-medium tabular-nums text-slate-900 dark:text-slate-100">{latest[s]}</span>}
        </li>
      ))}
    </ul>
  );
}
