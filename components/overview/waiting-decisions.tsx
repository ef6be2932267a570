import Link from "next/link";
import type { Overview } from "@/lib/client/overview";

const LINK = "font-medium text-sky-700 underline-offset-2 hover:underline dark:text-sky-300";

/**
 * What waits for a person: registrations to approve and rollout stages to approve, each a link to
 * where it is decided. Nothing waiting: nothing shown (the page is not a to-do list).
 */
export function WaitingDecisions({ decisions: d }: { decisions: NonNullable<Overview["decisions"]> }) {
  const rollouts = d.rolloutsAwaitingApproval;
  if (d.pendingRegistrations === 0 && rollouts.length === 0) return null;
  return (
    <section
      aria-labelledby="waiting-decisions"
      className="rounded-lg border border-sky-200 bg-sky-50/60 px-4 py-3 text-sm dark:border-sky-900 dark:bg-sky-950/30"
    >
      <h2 id="waiting-decisions" className="font-semibold text-slate-900 dark:text-slate-100">
        Waiting for a decision
      </h2>
      <ul className="mt-1.5 space-y-1 text-slate-700 dark:text-slate-300">
        {d.pendingRegistrations > 0 && (
          <li data-testid="pending-registrations">
            <Link href="/registration-requests" className={LINK}>
              {d.pendingRegistrations.toLocaleString("en-US")} registration{d.pendingRegistrations === 1 ? "" : "s"}
            </Link>{" "}
            {d.pendingRegistrations === 1 ? "waits" : "wait"} for approval.
          </li>
        )}
        {rollouts.map((r) => (
          <li key={r.id} data-testid="rollout-awaiting-approval">
            Rollout{" "}
            <Link href={`/rollouts/${encodeURIComponent(r.id)}`} className={LINK}>
              {r.name}
            </Link>{" "}
            waits for approval to start stage “{r.nextStage}”.
          </li>
        ))}
      </ul>
    </section>
  );
}
