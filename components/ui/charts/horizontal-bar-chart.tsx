"use client";

import { Bar, BarChart, CartesianGrid, Rectangle, Tooltip, XAxis, YAxis, type BarShapeProps } from "recharts";
import { ChartFigure } from "./chart-figure";
import { ChartTooltip } from "./chart-tooltip";
import { axisProps } from "./chart-colors";

export type BarSeries<K extends string> = { key: K; name: string; color: string };
const ROW_HEIGHT = 26;
/** Characters of a category name that fit the label column; longer ones end in "…" (the tooltip and table have them whole). */
const NAME_CHARS = 14;

/** The height the chart takes for `rows` categories (so a neighbour can match it). */
export function horizontalChartHeight(rows: number): number {
  return Math.max(120, rows * ROW_HEIGHT + 36);
}

function shorten(name: string): string {
  return name.length > NAME_CHARS ? `${name.slice(0, NAME_CHARS - 1)}…` : name;
}

/**
 * Categories as rows of horizontal bars (long names like regions and instance types stay
 * readable), one or more series, optionally stacked; named and described for assistive
 * technology with the numbers as a hidden table. Each row's total is printed in a column on the
 * right (a second category axis), so the numbers line up and never collide with the bars.
 */
export function HorizontalBarChart<K extends string>({
  label,
  description,
  rows,
  series,
  stacked = false,
  format = (v) => v.toLocaleString("en-US"),
  axisFormat = format,
  endLabel,
  labelWidth = 112,
  category = "Category",
  href,
}: {
  label: string;
  description: string;
  rows: ({ name: string } & Record<K, number>)[];
  series: BarSeries<K>[];
  stacked?: boolean;
  format?: (v: number) => string;
  /** shorter numbers for the axis ticks */
  axisFormat?: (v: number) => string;
  /** the text in the right column; default: the first series' value */
  endLabel?: (row: { name: string } & Record<K, number>) => string;
  labelWidth?: number;
  /** the hidden table's header over the category names (a header cell must not be empty) */
  category?: string;
  /** where a bar leads (e.g. the cluster list filtered to that row): each bar becomes a link */
  href?: (row: { name: string } & Record<K, number>, series: K) => string | undefined;
}) {
  const height = horizontalChartHeight(rows.length);
  const last = series[series.length - 1]!;
  const end = endLabel ?? ((r: { name: string } & Record<K, number>) => format(r[series[0]!.key]));
  const data = rows.map((r) => ({ ...r, __end: end(r) }));
  // Wide enough for the longest label at 11 px (recharts wraps tick text that does not fit).
  const endWidth = Math.max(44, Math.ceil(Math.max(0, ...data.map((d) => d.__end.length)) * 7) + 16);
  return (
    <ChartFigure
      label={label}
      description={description}
      height={height}
      table={{
        head: [category, ...series.map((s) => s.name)],
        rows: rows.map((r) => [r.name, ...series.map((s) => format(r[s.key]))]),
      }}
    >
      <BarChart
        responsive
        layout="vertical"
        data={data}
        margin={{ top: 4, right: 0, bottom: 0, left: 0 }}
        barCategoryGap={5}
        style={{ width: "100%", height: "100%" }}
      >
        <CartesianGrid horizontal={false} stroke="currentColor" strokeOpacity={0.12} />
        <XAxis
          type="number"
          allowDecimals={false}
          tickCount={4}
          tickFormatter={(v: number) => axisFormat(v)}
          {...axisProps}
          tick={{ fill: "currentColor", fontSize: 11 }}
        />
        <YAxis
          type="category"
          dataKey="name"
          width={labelWidth}
          interval={0}
          tickFormatter={shorten}
          {...axisProps}
          tick={{ fill: "currentColor", fontSize: 11 }}
        />
        <YAxis
          yAxisId="end"
          orientation="right"
          type="category"
          dataKey="__end"
          width={endWidth}
          interval={0}
          {...axisProps}
          tick={{ fill: "currentColor", fontSize: 11, textAnchor: "start" }}
        />
        <Tooltip
          cursor={{ fill: "currentColor", fillOpacity: 0.06 }}
          isAnimationActive={false}
          content={(p) => <ChartTooltip {...p} title={(l) => String(l)} value={(v) => format(v)} />}
        />
        {series.map((s) => (
          <Bar
            key={s.key}
            dataKey={s.key}
            name={s.name}
            fill={s.color}
            stackId={stacked ? "stack" : undefined}
            radius={!stacked || s === last ? [0, 3, 3, 0] : 0}
            maxBarSize={18}
            isAnimationActive={false}
            shape={
              href
                ? (props: BarShapeProps) => {
                    const row = props.payload as { name: string } & Record<K, number>;
                    const to = href(row, s.key);
                    const bar = <Rectangle {...props} />;
                    if (!to || !row[s.key]) return bar;
                    return (
                      <a href={to} aria-label={`${row.name}, ${s.name}: ${format(row[s.key])}. Show these clusters`}>
                        {bar}
                      </a>
                    );
                  }
                : undefined
            }
          />
        ))}
      </BarChart>
    </ChartFigure>
  );
}
