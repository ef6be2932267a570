import type { Rollout, RolloutStage, RolloutState } from "@/lib/client/rollouts";
import { Badge, type Tone } from "@/components/ui/badge";

// Segment colours of every rollout bar, in the order they are drawn.
export const SEGMENTS = [
  { key: "succeeded", label: "Succeeded", className: "bg-emerald-500" },
  { key: "upgrading", label: "Upgrading", className: "bg-sky-500 motion-safe:animate-pulse" },
  { key: "failed", label: "Failed", className: "bg-rose-500" },
  { key: "skipped", label: "Skipped", className: "bg-slate-400 dark:bg-slate-500" },
  { key: "pending", label: "Pending", className: "bg-slate-200 dark:bg-slate-700" },
] as const;
type SegmentKey = (typeof SEGMENTS)[number]["key"];
export type Counts = Record<SegmentKey, number>;

const STATE_TONE: Record<RolloutState, Tone> = {
  Running: "blue",
  Paused: "amber",
  AwaitingApproval: "violet",
  Completed: "green",
  Aborted: "red",
};
const STATE_LABEL: Partial<Record<RolloutState, string>> = { AwaitingApproval: "Awaiting approval" };

export function RolloutStateBadge({ state }: { state: RolloutState }) {
  return (
    <Badge tone={STATE_TONE[state]}>
      <span
        aria-hidden
        className={`h-1.5 w-1.5 rounded-full bg-current ${state === "Running" ? "motion-safe:animate-pulse" : ""}`}
      />
      {STATE_LABEL[state] ?? state}
    </Badge>
  );
}

export function totalsOf(r: Rollout): Counts {
  const { clusters, succeeded, failed, upgrading, skipped } = r.totals;
  return { succeeded, upgrading, failed, skipped, pending: Math.max(0, clusters - succeeded - failed - upgrading - skipped) };
}

export function stageCounts(s: RolloutStage): Counts {
  return { succeeded: s.succeeded, upgrading: s.upgrading, failed: s.failed, skipped: s.skipped, pending: s.pending };
}

function describe(label: string, counts: Counts, total: number): string {
  const parts = SEGMENTS.filter((s) => counts[s.key] > 0).map((s) => `${counts[s.key]} ${s.label.toLowerCase()}`);
  return `${label}: ${total} cluster${total === 1 ? "" : "s"}${parts.length ? `, ${parts.join(", ")}` : ""}`;
}

/** A stacked bar: succeeded, upgrading, failed, skipped, pending, as shares of all clusters. */
export function ProgressBar({ counts, label, size = "md" }: { counts: Counts; label: string; size?: "sm" | "md" }) {
  const total = SEGMENTS.reduce((s, seg) => s + counts[seg.key], 0);
  return (
    <div
      role="img"
      aria-label={describe(label, counts, total)}
      className={`flex w-full overflow-hidden rounded-full bg-slate-100 dark:bg-slate-800 ${size === "sm" ? "h-1.5" : "h-2.5"}`}
    >
      {total > 0 &&
        SEGMENTS.filter((seg) => counts[seg.key] > 0).map((seg) => (
          <div
            key={seg.key}
            className={`h-full ${seg.className} transition-[width] duration-500`}
            style={{ width: `${(counts[seg.key] / total) * 100}%` }}
          />
        ))}
    </div>
  );
}

export function SegmentLegend({ counts }: { counts?: Counts }) {
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
      {SEGMENTS.map((seg) => (
        <li key={seg.key} className="flex items-center gap-1.5">
          <span aria-hidden className={`h-2 w-2 rounded-sm ${seg.className.replace("motion-safe:animate-pulse", "")}`} />
          {seg.label}
          {counts && <span className="font-medium text-slate-900 tabular-nums dark:text-slate-100">{counts[seg.key]}</span>}
        </li>
      ))}
    </ul>
  );
}

/** "12 / 30" done (succeeded + skipped + failed) of all. */
export function doneOf(r: Rollout): { done: number; total: number } {
  return { done: r.totals.succeeded + r.totals.failed + r.totals.skipped, total: r.totals.clusters };
}
