"use client";

import { useId } from "react";
import { Area, AreaChart, CartesianGrid, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import type { PodSample } from "@/lib/client/clusters";
import { formatInstant, viewerTimeZone } from "@/lib/domain/time-format";
import { ChartFigure } from "@/components/ui/charts/chart-figure";
import { ChartTooltip } from "@/components/ui/charts/chart-tooltip";
import {
  REFERENCE_COLOR,
  axisProps,
  chartMargin,
  gridProps,
  lineCursor,
  timeAxisProps,
} from "@/components/ui/charts/chart-colors";

const PODS_COLOR = "#0ea5e9";
export const POD_CHART_HEIGHT = 160;

function clock(t: number) {
  return formatInstant(t, viewerTimeZone(), "time");
}

function describe(samples: readonly PodSample[], atStart: number | null): string {
  const last = samples[samples.length - 1];
  if (!last) return "The agent has not reported its pods yet.";
  const first = samples[0]!;
  return (
    `Pods reported by the agent from ${clock(first.t)} to ${clock(last.t)}: ${first.pods} → ${last.pods}` +
    (atStart !== null ? `, ${atStart} when the drain started.` : ".")
  );
}

/** Pods the agent reported since the drain started, as the server recorded them. */
export function PodsFallingChart({ samples, atStart }: { samples: readonly PodSample[]; atStart: number | null }) {
  const gradient = useId();
  const top = Math.max(1, atStart ?? 0, ...samples.map((s) => s.pods));
  // One sample draws no line: repeat it a second later so the current level still shows.
  const rows = samples.length === 1 ? [samples[0]!, { ...samples[0]!, t: samples[0]!.t + 1000 }] : samples;
  return (
    <ChartFigure
      label="Pods reported by the agent since the drain started"
      description={describe(samples, atStart)}
      height={POD_CHART_HEIGHT}
      table={{
        head: ["Time", "Pods"],
        rows: samples.filter((_, i) => i % 5 === 0 || i === samples.length - 1).map((s) => [clock(s.t), String(s.pods)]),
      }}
    >
      <AreaChart responsive data={rows} margin={chartMargin} style={{ width: "100%", height: "100%" }}>
        <defs>
          <linearGradient id={gradient} x1="0" y1="0" x2="0" y2="1">
            <stop offset="0%" stopColor={PODS_COLOR} stopOpacity={0.35} />
            <stop offset="100%" stopColor={PODS_COLOR} stopOpacity={0.02} />
          </linearGradient>
        </defs>
        <CartesianGrid {...gridProps} />
        <XAxis {...timeAxisProps(clock, 48)} />
        <YAxis width={40} allowDecimals={false} domain={[0, Math.ceil(top * 1.1)]} {...axisProps} />
        <Tooltip
          cursor={lineCursor}
          isAnimationActive={false}
          content={(p) => <ChartTooltip {...p} title={(t) => clock(Number(t))} value={(v) => v.toLocaleString("en-US")} />}
        />
        {atStart !== null && (
          <ReferenceLine
            y={atStart}
            stroke={REFERENCE_COLOR}
            strokeDasharray="4 3"
            ifOverflow="extendDomain"
            label={{ value: `at start: ${atStart}`, position: "insideTopRight", fill: "currentColor", fontSize: 11 }}
          />
        )}
        <Area
          type="stepAfter"
          dataKey="pods"
          name="Pods"
          stroke={PODS_COLOR}
          strokeWidth={2}
          fill={`url(#${gradient})`}
          isAnimationActive={false}
        />
      </AreaChart>
    </ChartFigure>
  );
}
