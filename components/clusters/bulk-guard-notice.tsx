import type { SelectionGuard } from "@/lib/domain/selection-guard";

/**
 * Why a wide destructive selection asks for more than the count: it is the whole fleet (through a
 * team: every cluster of the person's teams), or it includes production clusters. Only an admin
 * may go on (for a team's clusters, an admin of that team), by typing the sentence the server checks.
 */
export function BulkGuardNotice({ guard, isAdmin }: { guard: SelectionGuard; isAdmin: boolean }) {
  const whole = guard.withinTeams
    ? `is every cluster of your teams (${guard.fleet.toLocaleString("en-US")})`
    : `is the whole fleet (${guard.fleet.toLocaleString("en-US")} clusters)`;
  const what = [
    guard.reasons.includes("wholeFleet") ? whole : null,
    guard.production
      ? `includes ${guard.production.toLocaleString("en-US")} production cluster${guard.production === 1 ? "" : "s"}`
      : null,
  ]
    .filter(Boolean)
    .join(" and ");
  return (
    <div
      data-testid="bulk-guard"
      className="rounded-md border border-rose-300 bg-rose-50 p-3 text-sm text-rose-900 dark:border-rose-800 dark:bg-rose-950/40 dark:text-rose-100"
    >
      <p className="font-semibold">This selection {what}.</p>
      <p className="mt-1">
        {isAdmin
          ? `Only an admin can go on, by typing the sentence below; the audit log records it as a ${guard.reasons.includes("wholeFleet") ? "whole-fleet" : "production"} action.`
          : guard.withinTeams
            ? "Only an admin of these clusters' team can do this. Narrow the selection, or ask your team's admin."
            : "Only an admin can do this. Narrow the selection, or ask an admin."}
      </p>
    </div>
  );
}

/**
 * Through a team: how many clusters the filter also matches outside the person's teams, left
 * alone. Counted, never named; nothing when none were left out (or for a fleet role).
 */
export function LeftOutNote({ leftOut }: { leftOut: number | undefined }) {
  if (!leftOut) return null;
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="bulk-left-out">
      {leftOut.toLocaleString("en-US")} more cluster{leftOut === 1 ? "" : "s"} match{leftOut === 1 ? "es" : ""} outside your teams
      and {leftOut === 1 ? "is" : "are"} left out.
    </p>
  );
}
