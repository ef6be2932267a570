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
