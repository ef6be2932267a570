import type { Overview } from "@/lib/client/overview";
import { explainRegistrationResult, objectiveClass, type ObjectiveClass } from "@/lib/domain/registration-errors";
import { Badge } from "@/components/ui/badge";

/** "99.95 %": floored, so a rate just under the objective never rounds up to look like a pass. */
export function formatRate(rate: number): string {
  const floored = Math.floor(rate * 10_000) / 100;
  return `${floored.toFixed(floored === 100 ? 0 : 2)} %`;
}

/**
 * Registration success over the window against the objective. Only failures of the system count
 * against it; refusals that worked as designed are shown beside it, each list by code (a
 * registration waiting for an operator's approval is neither: it is counted on its own), and
 * attempts deferred for load (503 overloaded) are a third bucket outside the rate: the agent
 * retries, and each retry is an attempt of its own. The card
 * sits in a half-width column: it lays itself out by its own width (a container query), so the
 * summary never squeezes into a one-word column at 1280 px.
 */
export function RegistrationSuccess({ registrations: r }: { registrations: NonNullable<Overview["registrations"]> }) {
  const byClass = (c: ObjectiveClass) =>
    Object.entries(r.byResult)
      .filter(([code]) => objectiveClass(code) === c)
      .sort((a, b) => b[1] - a[1]);
  const meets = r.successRate !== null && r.successRate >= r.objective;
  const objective = `${Math.round(r.objective * 1000) / 10} %`;
  return (
    <div className="@container space-y-5">
      <div className="flex flex-wrap items-start gap-x-6 gap-y-3">
        <div className="shrink-0">
          <p className="text-3xl font-semibold tabular-nums" data-testid="registration-rate">
            {r.successRate === null ? "—" : formatRate(r.successRate)}
          </p>
          <div className="mt-2">
            {r.successRate === null ? (
              <Badge>{r.total ? "Nothing decided yet" : "No attempts"}</Badge>
            ) : meets ? (
              <Badge tone="green">✓ Meets the {objective} objective</Badge>
            ) : (
              <Badge tone="red">✕ Below the {objective} objective</Badge>
            )}
          </div>
        </div>
        <div className="min-w-[min(100%,16rem)] flex-1 space-y-2 text-sm">
          <p className="text-slate-600 dark:text-slate-400" data-testid="registration-summary">
            {r.total === 0 ? (
              <>No agent tried to register in the last {r.windowHours} h.</>
            ) : (
              <>
                <Count n={r.total} strong /> attempts in the last {r.windowHours} h: <Count n={r.succeeded} /> succeeded,{" "}
                {r.waiting > 0 && (
                  <span data-testid="registration-waiting">
                    <Count n={r.waiting} /> waiting for approval,{" "}
                  </span>
                )}
                <Count n={r.refused} /> refused as designed,{" "}
                <span data-testid="registration-deferred">
                  <Count n={r.deferred} /> deferred (overloaded)
                </span>
                , <Count n={r.failed} alarm={r.failed > 0} /> failed on the server.
              </>
            )}
          </p>
          {r.successRate !== null && <RateBar rate={r.successRate} objective={r.objective} meets={meets} />}
        </div>
      </div>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        The objective counts failures of the system only (server errors, timeouts). Refusals — an expired or used-up token, a
        missing label, a bad certificate request — are the server working as designed. Attempts deferred because the server was
        overloaded (503, retry later) are neither: the rate leaves them out, as the agent retries and each retry counts on its
        own.
      </p>
      <div className="grid gap-5 @md:grid-cols-2 @3xl:grid-cols-3">
        <CodeList title="Failures by code" testId="registration-failures" codes={byClass("failure")} />
        <CodeList title="Refused by code" testId="registration-refusals" codes={byClass("refusal")} />
        <CodeList title="Deferred (overloaded)" testId="registration-deferrals" codes={byClass("deferred")} />
      </div>
    </div>
  );
}

function Count({ n, strong = false, alarm = false }: { n: number; strong?: boolean; alarm?: boolean }) {
  const tone = alarm
    ? "font-medium text-rose-700 dark:text-rose-400"
    : strong
      ? "font-medium text-slate-900 dark:text-slate-100"
      : "";
  return <span className={`tabular-nums ${tone}`}>{n.toLocaleString("en-US")}</span>;
}

function CodeList({ title, codes, testId }: { title: string; codes: [string, number][]; testId: string }) {
  return (
    <div data-testid={testId}>
      <h3 className="text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">{title}</h3>
      {codes.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">None.</p>
      ) : (
        <ul className="mt-2 space-y-1 text-sm">
          {codes.slice(0, 5).map(([code, n]) => (
            <li key={code} className="flex items-center justify-between gap-3">
              <code className="truncate font-mono text-xs" title={explainRegistrationResult(code).title}>
                {code}
              </code>
              <span className="tabular-nums">{n.toLocaleString("en-US")}</span>
            </li>
          ))}
          {codes.length > 5 && <li className="text-xs text-slate-500 dark:text-slate-400">and {codes.length - 5} more codes</li>}
        </ul>
      )}
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
      <div
        className="mt-1 flex justify-between gap-3 text-[11px] whitespace-nowrap tabular-nums text-slate-500 dark:text-slate-400"
        data-testid="registration-bar-labels"
      >
        <span>90 %</span>
        <span>objective {Math.round(objective * 1000) / 10} %</span>
      </div>
    </div>
  );
}
