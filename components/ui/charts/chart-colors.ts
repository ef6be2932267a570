// Chart colours are mid-tones that read on both the light and the dark background (SVG
// presentation attributes cannot follow the `dark:` variant). Axes and grid use currentColor
// so they take the surrounding text colour of each theme.
export const STATUS_COLORS = {
  Ready: "#10b981",
  NotReady: "#f43f5e",
  Pending: "#94a3b8",
  Draining: "#f59e0b",
} as const;

export const RATE_COLOR = "#0ea5e9";
export const GAP_COLOR = "#f43f5e";
export const REFERENCE_COLOR = "#a855f7";

export const axisProps = {
  stroke: "currentColor",
  tick: { fill: "currentColor", fontSize: 12 },
  tickLine: false,
  axisLine: false,
} as const;

// The frame every fleet chart shares, so they line up on a page.
export const chartMargin = { top: 8, right: 8, bottom: 0, left: 0 };
export const gridProps = { vertical: false, stroke: "currentColor", strokeOpacity: 0.12 } as const;
export const lineCursor = { stroke: "currentColor", strokeOpacity: 0.3 } as const;

/** An x axis over `t` (epoch ms) on a time scale, ticks formatted by `format`. */
export function timeAxisProps(format: (t: number) => string, minTickGap: number) {
  return {
    dataKey: "t",
    type: "number",
    scale: "time",
    domain: ["dataMin", "dataMax"],
    tickFormatter: format,
    minTickGap,
    ...axisProps,
  } as const;
}
