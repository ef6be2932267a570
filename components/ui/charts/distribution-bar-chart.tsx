"use client";

import { Bar, BarChart, CartesianGrid, Cell, LabelList, Rectangle, Tooltip, XAxis, YAxis, type BarShapeProps } from "recharts";
import { ChartFigure } from "./chart-figure";
import { ChartTooltip } from "./chart-tooltip";
import { axisProps } from "./chart-colors";

/** `href`: where the bar leads (e.g. the cluster list filtered to it); the bar becomes a link. */
export type DistributionBar = { name: string; value: number; color: string; note?: string; href?: string };

/**
 * A count per category (versions, instance types) as vertical bars, each with its own colour,
 * named and described for assistive technology with the numbers as a hidden table.
 */
export function DistributionBarChart({
  label,
  unit,
  bars,
  height = 220,
  legend,
}: {
  label: string;
  /** what a bar counts, plural: "clusters", "nodes" */
  unit: string;
  bars: DistributionBar[];
  height?: number;
  legend?: { color: string; label: string }[];
}) {
  const total = bars.reduce((s, b) => s + b.value, 0);
  const top = [...bars].sort((a, b) => b.value - a.value)[0];
  const description = top
    ? `${total.toLocaleString("en-US")} ${unit} across ${bars.length} categories; the most common is ${top.name} with ${top.value.toLocaleString("en-US")}.`
    : `No ${unit} to show.`;
  return (
    <div>
      <ChartFigure
        label={label}
        description={description}
        height={height}
        table={{
          head: ["Category", unit],
          rows: bars.map((b) => [b.note ? `${b.name} (${b.note})` : b.name, b.value.toLocaleString("en-US")]),
        }}
      >
        <BarChart
          responsive
          data={bars}
          margin={{ top: 20, right: 8, bottom: 0, left: 0 }}
          style={{ width: "100%", height: "100%" }}
        >
          <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.12} />
          <XAxis dataKey="name" interval={0} {...axisProps} tick={{ fill: "currentColor", fontSize: 11 }} />
          <YAxis width={36} allowDecimals={false} {...axisProps} />
          <Tooltip
            cursor={{ fill: "currentColor", fillOpacity: 0.06 }}
            isAnimationActive={false}
            content={(p) => (
              <ChartTooltip {...p} title={(l) => String(l)} value={(v) => `${v.toLocaleString("en-US")} ${unit}`} />
            )}
          />
          <Bar
            dataKey="value"
            name={unit[0]!.toUpperCase() + unit.slice(1)}
            radius={[3, 3, 0, 0]}
            maxBarSize={48}
            isAnimationActive={false}
            shape={(props: BarShapeProps) => {
              const b = props.payload as DistributionBar;
              const bar = <Rectangle {...props} />;
              if (!b.href || !b.value) return bar;
              return (
                <a href={b.href} aria-label={`${b.name}: ${b.value.toLocaleString("en-US")} ${unit}. Show these clusters`}>
                  {bar}
                </a>
              );
            }}
          >
            {bars.map((b) => (
              <Cell key={b.name} fill={b.color} />
            ))}
            <LabelList dataKey="value" position="top" fill="currentColor" fontSize={11} />
          </Bar>
        </BarChart>
      </ChartFigure>
      {legend && (
        <ul aria-hidden className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
          {legend.map((l) => (
            <li key={l.label} className="flex items-center gap-1.5">
              <span className="h-2 w-2 rounded-sm" style={{ background: l.color }} />
              {l.label}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
