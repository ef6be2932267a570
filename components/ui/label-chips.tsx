import type { ReactNode } from "react";
import type { Labels } from "@/lib/domain/labels";

/** Labels as `key=value` chips; with `max`, the rest are counted ("+3") and listed in a tooltip. */
export function LabelChips({
  labels,
  max,
  empty = "No labels",
  nowrap,
  whole,
  first = [],
}: {
  labels: Labels;
  max?: number;
  empty?: string;
  /** one line, chips shrinking (truncated) to fit: for table rows that must keep one height */
  nowrap?: boolean;
  /** chips wrap onto more lines and a long value breaks inside its chip instead of being cut */
  whole?: boolean;
  /** keys shown before the others, in this order (the fleet's required labels say the most) */
  first?: readonly string[];
}) {
  const rank = (key: string) => (first.includes(key) ? first.indexOf(key) : first.length);
  const entries = Object.entries(labels).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  if (entries.length === 0) return <span className="text-xs text-slate-500 dark:text-slate-400">{empty}</span>;
  const shown = max === undefined ? entries : entries.slice(0, max);
  const hidden = entries.slice(shown.length);
  return (
    <ul className={`flex gap-1 ${nowrap ? "flex-nowrap overflow-hidden" : "flex-wrap"}`} aria-label="Labels">
      {shown.map(([k, v], i) => (
        // On one line only the last chip shrinks: short labels stay whole, the long tail is cut.
        <li
          key={k}
          className={nowrap ? (i === shown.length - 1 ? "min-w-0 shrink" : "shrink-0") : undefined}
          title={nowrap ? `${k}=${v}` : undefined}
        >
          <LabelChip k={k} v={v} whole={whole} />
        </li>
      ))}
      {hidden.length > 0 && (
        <li className="shrink-0">
          <span
            title={hidden.map(([k, v]) => `${k}=${v}`).join("\n")}
            className="inline-flex rounded px-1.5 py-0.5 text-xs text-slate-500 ring-1 ring-inset ring-slate-200 dark:text-slate-400 dark:ring-slate-700"
          >
            +{hidden.length}
            <span className="sr-only"> more: {hidden.map(([k, v]) => `${k}=${v}`).join(", ")}</span>
          </span>
        </li>
      )}
    </ul>
  );
}

/**
 * One label in monospace: `k`/`v` as key=value (key dimmed, a long value truncated), or a label
 * requirement written by the caller as children (e.g. `region: any`, `tier ∈ {a, b}`).
 */
export function LabelChip({
  title,
  whole,
  ...chip
}: { title?: string; whole?: boolean } & (
  { k: string; v: string; children?: never } | { children: ReactNode; k?: never; v?: never }
)) {
  return (
    <span
      title={title}
      className={`${whole ? "inline-block max-w-full [overflow-wrap:anywhere]" : "inline-flex max-w-full items-center truncate"} rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700 ring-1 ring-inset ring-slate-200 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-700`}
    >
      {chip.k === undefined ? (
        chip.children
      ) : (
        <>
          <span className="text-slate-600 dark:text-slate-400">{chip.k}</span>
          {chip.v !== "" && (
            <>
              <span className="text-slate-600 dark:text-slate-400">=</span>
              <span className={whole ? undefined : "truncate"}>{chip.v}</span>
            </>
          )}
        </>
      )}
    </span>
  );
}
