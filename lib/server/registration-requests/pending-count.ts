import "server-only";
import type { Labels } from "@/lib/domain/labels";
import type { Selector } from "@/lib/domain/selector";
import { withinScope } from "@/lib/domain/teams";
import { db } from "@/lib/server/db/client";
import { publish } from "@/lib/server/events/bus";

/**
 * How many requests wait for a decision; `scope`: only those whose labels a team member's scope
 * takes in (null: the whole fleet). Labels are JSON text, so a team's count is matched here: the
 * pending set is small (each holds a token use and expires within days).
 */
export async function countPending(scope: readonly Selector[] | null = null): Promise<number> {
  if (!scope) return db().registrationRequest.count({ where: { state: "pending" } });
  if (!scope.length) return 0;
  const rows = await db().registrationRequest.findMany({ where: { state: "pending" }, select: { labels: true } });
  return rows.filter((r) => withinScope(scope, JSON.parse(r.labels) as Labels)).length;
}

/**
 * Tells the live streams how many requests wait now (after a commit that changed the pending set).
 * The count is the fleet's: the stream sends it to those who decide across the fleet only.
 */
export async function publishPendingCount(): Promise<void> {
  publish({ type: "registration.requests", pending: await countPending(), at: new Date().toISOString() });
}
