import type { Overview } from "@/lib/client/overview";
import { Badge } from "@/components/ui/badge";

/** "99.95 %": floored, so a rate just under the objective never rounds up to look like a pass. */
export function formatRate(rate: number): string {
  const floored = Math.floor(rate * 10_000) / 100;
  return `${floored.toFixed(floored === 100 ? 0 : 2)} %`;
}

/** Registration success over the window against the objective, with failures by error code. */
export function RegistrationSuccess({ registrations: r }: { registrations: Overview["registrations"] }) {
  const failures = Object.entries(r.byResult)
    .filter(([code]) => code !== "ok")
    .sort((a, b) => b[1] - a[1]);
  const meets = r.successRate !== null && r.successRate >= r.objective;
  const objective = `${Math.round(r.objective * 1000) / 10} %`;
  return (
    <div className="grid grid-cols-1 items-start gap-6 @3xl:grid-cols-[minmax(0,14rem)_minmax(0,1fr)_minmax(0,18rem)]">
      <div>
        <p className="text-3xl font-semibold tabular-nums" data-testid="registration-rate">
          {r.successRate === null ? "—" : formatRate(r.successRate)}
        </p>
        <div className="mt-2">
          {r.successRate === null ? (
            <Badge>No attempts</Badge>
          ) : meets ? (
            <Badge tone="green">✓ Meets the {objective} objective</Badge>
          ) : (
            <Badge tone="red">✕ Below the {objective} objective</Badge>
          )}
        </div>
      </div>
      <div className="space-y-2 text-sm">
        <p className="text-slate-600 dark:text-slate-400">
          {r.total === 0 ? (
            <>No agent tried to register in the last {r.windowHours} h.</>
          ) : (
            <>
              <span className="font-medium tabular-nums text-slate-900 dark:text-slate-100">{r.total.toLocaleString()}</span>{" "}
              attempts in the last {r.windowHours} h: <span className="tabular-nums">{r.succeeded.toLocaleString()}</span>{" "}
              succeeded,{" "}
              <span className={`tabular-nums ${r.failed ? "font-medium text-rose-700 dark:text-rose-400" : ""}`}>
                {r.failed.toLocaleString()}
              </span>{" "}
              failed.
            </>
          )}
        </p>
        {r.successRate !== null && <RateBar rate={r.successRate} objective={r.objective} meets={meets} />}
      </div>
      <div>
        <h3 className="text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">Failures by code</h3>
        {failures.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">None.</p>
        ) : (
          <ul className="mt-2 space-y-1 text-sm">
            {failures.slice(0, 5).map(([code, n]) => (
              <li key={code} className="flex items-center justify-between gap-3">
                <code className="truncate font-mono text-xs">{code}</code>
                <span className="tabular-nums">{n.toLocaleString()}</span>
              </li>
            ))}
            {failures.length > 5 && (
              <li className="text-xs text-slate-500 dark:text-slate-400">and {failures.length - 5} more codes</li>
            )}
          </ul>
        )}
      </div>
    </div>
  );
}

/**
 * The rate on a zoomed scale (90-100 %): on a 0-100 % bar, 99.5 % and 99.95 % look identical,
 * and that difference is the whole point of the objective.
 */
function RateBar({ rate, objective, meets }: { rate: number; objective: number; meets: boolean }) {
  const FLOOR = 0.9;
  const pos = (v: number) => `${Math.max(0, Math.min(1, (v - FLOOR) / (1 - FLOOR))) * 100}%`;
  return (
    <div aria-hidden className="pt-1">
      <div className="relative h-2 rounded-full bg-slate-100 dark:bg-slate-800">
        <div className={`h-2 rounded-full ${meets ? "bg-emerald-500" : "bg-rose-500"}`} style={{ width: pos(rate) }} />
        <div className="absolute -top-1 h-4 w-0.5 bg-slate-700 dark:bg-slate-300" style={{ left: pos(objective) }} />
      </div>
      <div className="mt-1 flex justify-between text-[11px] tabular-nums text-slate-500 dark:text-slate-400">
        <span>90 %</span>
        <span>objective {Math.round(objective * 1000) / 10} %</span>
      </div>
    </div>
  );
}
