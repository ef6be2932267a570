"use client";

import { useId, useMemo } from "react";
import { Area, AreaChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import { ChartFigure } from "@/components/ui/charts/chart-figure";
import { ChartTooltip } from "@/components/ui/charts/chart-tooltip";
import { RATE_COLOR, axisProps, chartMargin, gridProps, lineCursor, timeAxisProps } from "@/components/ui/charts/chart-colors";
import { clockTime, describeRate, perSecondSeries } from "@/components/ui/charts/chart-data";

/** Fleet heartbeats per second, one point per minute (the overview's last 15 minutes). */
export function HeartbeatRateChart({ minutes, now }: { minutes: readonly { at: string; count: number }[]; now: string }) {
  const gradient = useId();
  const points = useMemo(() => perSecondSeries(minutes, Date.parse(now)), [minutes, now]);
  return (
    <ChartFigure
      label="Heartbeats per second, last 15 minutes"
      description={describeRate(points)}
      height={200}
      table={{ head: ["Minute", "Heartbeats per second"], rows: points.map((p) => [clockTime(p.t), String(p.perSecond)]) }}
    >
      <AreaChart responsive data={points} margin={chartMargin} style={{ width: "100%", height: "100%" }}>
        <defs>
          <linearGradient id={gradient} x1="0" y1="0" x2="0" y2="1">
            <stop offset="0%" stopColor={RATE_COLOR} stopOpacity={0.35} />
            <stop offset="100%" stopColor={RATE_COLOR} stopOpacity={0.02} />
          </linearGradient>
        </defs>
        <CartesianGrid {...gridProps} />
        <XAxis {...timeAxisProps(clockTime, 32)} />
        <YAxis width={40} allowDecimals={false} {...axisProps} />
        <Tooltip
          cursor={lineCursor}
          isAnimationActive={false}
          content={(p) => (
            <ChartTooltip {...p} title={(t) => clockTime(Number(t))} value={(v) => `${v.toLocaleString("en-US")}/s`} />
          )}
        />
        <Area
          type="monotone"
          dataKey="perSecond"
          name="Heartbeats"
          stroke={RATE_COLOR}
          strokeWidth={2}
          fill={`url(#${gradient})`}
          isAnimationActive={false}
        />
      </AreaChart>
    </ChartFigure>
  );
}
