import "server-only";
import type { GateQuery, GateResult } from "@/lib/contracts/fleet";
import type { Selector } from "@/lib/domain/selector";
import { snoozeView } from "@/lib/domain/cluster-snooze";
import { db } from "@/lib/server/db/client";
import { filteredIds } from "@/lib/server/clusters/cluster-list-sql";

// The change gate's "tolerate snoozed clusters" option (lib/domain/cluster-snooze.ts): asked for
// per request (`tolerateSnoozed`), else the group's own setting, so the console's gate view and
// `GET /gate?group=` give the same answer.

export type GateSnooze = { until: string; reason: string; owner: string };

/** Whether this evaluation tolerates snoozed clusters: the query's word, else the named group's setting. */
export async function toleratesSnoozed(q: Pick<GateQuery, "tolerateSnoozed" | "group">): Promise<boolean> {
  if (q.tolerateSnoozed !== undefined) return q.tolerateSnoozed === "true";
  if (!q.group) return false;
  const g = await db().clusterGroup.findFirst({
    where: { OR: [{ id: q.group }, { name: q.group }] },
    select: { gateTolerateSnoozed: true },
  });
  return g?.gateTolerateSnoozed ?? false;
}

/** The selection's clusters whose snooze is in force at `now`, by id (at most `limit`). */
export async function snoozesIn(selector: Selector, now: Date, limit: number): Promise<Map<string, GateSnooze>> {
  const ids = await filteredIds({ selector, snoozed: true }, { sort: "name", order: "asc" }, limit, now, {
    notReadyThresholdSeconds: 0,
    flappingThresholdPerHour: 0,
  });
  if (!ids.length) return new Map();
  const rows = await db().cluster.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      snoozedUntil: true,
      snoozedAt: true,
      snoozeReason: true,
      snoozeOwner: true,
      snoozedBy: true,
      statusChangedAt: true,
      phaseChangedAt: true,
    },
  });
  const out = new Map<string, GateSnooze>();
  for (const r of rows) {
    const s = snoozeView(r, now);
    if (s) out.set(r.id, { until: s.until, reason: s.reason, owner: s.owner });
  }
  return out;
}

/** The answer's `snoozed` part. */
export function snoozedPart(tolerated: boolean, clusters: NonNullable<GateResult["snoozed"]>["clusters"]): GateResult["snoozed"] {
  const names = clusters.slice(0, 10).map((c) => c.name);
  const more = clusters.length - names.length;
  return {
    tolerated,
    clusters,
    text: clusters.length ? `left out ${clusters.length} snoozed: ${names.join(", ")}${more ? ` and ${more} more` : ""}` : null,
  };
}
