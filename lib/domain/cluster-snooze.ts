// Silence for a known-broken cluster: an operator snoozes it until a time, with a reason and who
// looks after it meanwhile. While the snooze holds, the cluster leaves "needs attention", its
// webhook alerts stop, and a gate told to tolerate snoozed clusters leaves it out. A snooze holds
// only for the state it was given in: a status or phase recorded after it ends it (a recovery, a
// new failure and a drain all deserve a look again). Pure: the SQL (snoozeActiveCondition in
// lib/server/clusters/cluster-list-sql.ts) says the same, and an integration test compares them.

/** The longest snooze: a silence nobody revisits for longer hides a cluster for good. */
export const MAX_SNOOZE_DAYS = 30;
export const SNOOZE_REASON_MAX = 500;
export const SNOOZE_OWNER_MAX = 200;

export type SnoozeFacts = {
  snoozedUntil: Date | null;
  snoozedAt: Date | null;
  /** when the sweeper last recorded a status, and when the phase last changed */
  statusChangedAt: Date;
  phaseChangedAt: Date;
};

/** Whether a cluster's snooze is in force at `now`. */
export function snoozeActive(f: SnoozeFacts, now: Date): boolean {
  if (!f.snoozedUntil || !f.snoozedAt) return false;
  return f.snoozedUntil.getTime() > now.getTime() && f.statusChangedAt <= f.snoozedAt && f.phaseChangedAt <= f.snoozedAt;
}

/** Why a snooze end cannot be accepted, or null: after now, and at most MAX_SNOOZE_DAYS ahead. */
export function snoozeUntilProblem(until: Date, now: Date): string | null {
  if (Number.isNaN(until.getTime())) return "Give the end of the snooze as a date and time.";
  if (until.getTime() <= now.getTime()) return "The snooze must end in the future.";
  if (until.getTime() - now.getTime() > MAX_SNOOZE_DAYS * 86_400_000)
    return `A snooze lasts at most ${MAX_SNOOZE_DAYS} days; snooze again when it ends if the cluster still needs it.`;
  return null;
}

export type SnoozeRow = SnoozeFacts & { snoozeReason: string | null; snoozeOwner: string | null; snoozedBy: string | null };

/** The snooze in force as the API shows it, or null. */
export function snoozeView(
  r: SnoozeRow,
  now: Date,
): { until: string; at: string; reason: string; owner: string; by: string | null } | null {
  if (!snoozeActive(r, now)) return null;
  return {
    until: r.snoozedUntil!.toISOString(),
    at: r.snoozedAt!.toISOString(),
    reason: r.snoozeReason ?? "",
    owner: r.snoozeOwner ?? "",
    by: r.snoozedBy,
  };
}

/** The columns a snooze is read from (Prisma `select`). */
export const SNOOZE_SELECT = {
  snoozedUntil: true,
  snoozedAt: true,
  snoozeReason: true,
  snoozeOwner: true,
  snoozedBy: true,
  statusChangedAt: true,
  phaseChangedAt: true,
} as const;
