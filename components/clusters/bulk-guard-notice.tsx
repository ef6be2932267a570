import type { SelectionGuard } from "@/lib/domain/selection-guard";

/**
 * Why a wide destructive selection asks for more than the count: it is the whole fleet, or it
 * includes production clusters. Only an admin may go on, by typing the sentence the server checks.
 */
export function BulkGuardNotice({ guard, isAdmin }: { guard: SelectionGuard; isAdmin: boolean }) {
  const what = [
    guard.reasons.includes("wholeFleet") ? `is the whole fleet (${guard.fleet.toLocaleString()} clusters)` : null,
    guard.production
      ? `includes ${guard.production.toLocaleString()} production cluster${guard.production === 1 ? "" : "s"}`
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
          : "Only an admin can do this. Narrow the selection, or ask an admin."}
      </p>
    </div>
  );
}
