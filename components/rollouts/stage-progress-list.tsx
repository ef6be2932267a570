"use client";

import type { Rollout } from "@/lib/client/rollouts";
import { useNow } from "@/components/ui/relative-time";
import { useHydrated } from "@/components/ui/local-time";
import { formatCountdown } from "@/components/ui/format";
import { ProgressBar, stageCounts } from "./rollout-progress";

const STATE_MARK = {
  done: "bg-emerald-700 text-white dark:bg-emerald-500 dark:text-emerald-950",
  current: "bg-sky-700 text-white ring-4 ring-sky-100 dark:bg-sky-500 dark:text-sky-950 dark:ring-sky-950",
  waiting: "border border-slate-300 text-slate-500 dark:border-slate-700 dark:text-slate-400",
} as const;

/** Each stage with its stacked progress bar; the running one says when the next stage starts. */
export function StageProgressList({ rollout }: { rollout: Rollout }) {
  const now = useNow();
  // The countdown needs the browser's clock: not in the server-rendered first paint.
  const hydrated = useHydrated();
  const waitLeft =
    hydrated && rollout.state === "Running" && rollout.stageCompletedAt
      ? Math.max(0, Math.ceil((Date.parse(rollout.stageCompletedAt) + rollout.waitSeconds * 1000 - now) / 1000))
      : null;
  return (
    <ol aria-label="Stages" className="space-y-4">
      {rollout.stages.map((s) => {
        const finished = s.succeeded + s.failed + s.skipped;
        const isCurrent =
          s.state === "current" &&
          (rollout.state === "Running" || rollout.state === "Paused" || rollout.state === "AwaitingApproval");
        return (
          <li
            key={s.index}
            data-stage={s.name}
            data-state={s.state}
            aria-current={isCurrent ? "step" : undefined}
            className="flex gap-3"
          >
            <span
              aria-hidden
              className={`mt-0.5 flex h-6 w-6 shrink-0 items-center justify-center rounded-full text-xs font-semibold tabular-nums ${STATE_MARK[s.state]}`}
            >
              {s.state === "done" ? "✓" : s.index + 1}
            </span>
            <div className="min-w-0 flex-1 space-y-1.5">
              <div className="flex items-baseline justify-between gap-3 text-sm">
                <p>
                  <span className="font-medium">{s.name}</span>
                  <span className="sr-only">
                    {" "}
                    — {s.state === "done" ? "done" : s.state === "current" ? "current stage" : "waiting"}
                  </span>
                  {isCurrent && waitLeft !== null && (
                    <span className="ml-2 text-xs text-slate-500 dark:text-slate-400">
                      {waitLeft > 0 ? `next stage in ${formatCountdown(waitLeft)}` : "starting the next stage…"}
                    </span>
                  )}
                </p>
                <p className="text-xs text-slate-600 tabular-nums dark:text-slate-400">
                  <span data-testid="stage-finished">{finished}</span> / {s.total} finished
                  {s.failed > 0 && <span className="ml-2 text-rose-700 dark:text-rose-400">{s.failed} failed</span>}
                </p>
              </div>
              <ProgressBar counts={stageCounts(s)} label={`Stage ${s.index + 1}, ${s.name}`} />
            </div>
          </li>
        );
      })}
    </ol>
  );
}
