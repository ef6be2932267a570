// When a destructive bulk selection is wide enough to need more than an operator's typed count:
// it covers the whole fleet, or it includes production clusters (the `productionSelector`
// setting). Then it needs an admin and a typed sentence that says what it does. Pure: the
// confirmation dialog shows what the server will check.

export const GUARD_REASONS = ["wholeFleet", "production"] as const;
export type GuardReason = (typeof GUARD_REASONS)[number];

export type SelectionGuard = {
  reasons: GuardReason[];
  /** selected clusters the production selector matches */
  production: number;
  /** clusters in the fleet (through a team: in the caller's teams' scopes, see `withinTeams`) */
  fleet: number;
  /** what the admin types to confirm, word for word */
  phrase: string;
  /**
   * Through a team, "the whole fleet" is the whole of the caller's scope: every cluster of the
   * teams they act through, and `fleet` counts those.
   */
  withinTeams?: boolean;
  /**
   * Whether the caller may confirm it: an admin of every selected cluster (a fleet admin, or an
   * admin of a team whose scope holds it). Said by the server's dry run.
   */
  confirmable?: boolean;
};

/**
 * The guard on `count` selected clusters out of `fleet`, `production` of them production, for
 * `action` ("drain", "retire pool gpu on"): null when the typed count is enough. A fleet of one is
 * left to the count, as a single removal is.
 */
export function selectionGuard(action: string, count: number, fleet: number, production: number): SelectionGuard | null {
  const reasons: GuardReason[] = [];
  if (count >= 2 && count >= fleet) reasons.push("wholeFleet");
  if (production > 0) reasons.push("production");
  if (!reasons.length) return null;
  const clusters = `${count} cluster${count === 1 ? "" : "s"}`;
  const phrase = `${action} ${reasons.includes("wholeFleet") ? "all " : ""}${clusters}${production ? `, ${production} in production` : ""}`;
  return { reasons, production, fleet, phrase };
}

/** Typed confirmations compare without case or repeated spaces: the words count, not the keystrokes. */
export function phraseMatches(typed: string | undefined, phrase: string): boolean {
  const norm = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();
  return typed !== undefined && norm(typed) === norm(phrase);
}

/**
 * A bulk drain's pace: `perMinute` start at once, then `perMinute` a minute. Returns when the
 * drain at `index` (0-based) may start, in whole minutes from the bulk action.
 */
export function drainStartMinute(index: number, perMinute: number): number {
  return Math.floor(index / Math.max(1, perMinute));
}
