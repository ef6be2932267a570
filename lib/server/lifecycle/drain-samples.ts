import "server-only";
import { isNewDrainSample } from "@/lib/domain/deregistration";
import { db, type Tx } from "@/lib/server/db/client";

// The drain chart's history: the pods each draining cluster's agent reported, kept by the server
// (the cluster row holds only the latest report), so the wizard shows the whole curve whenever it
// is opened. A background job samples; the heartbeat path is left alone.

/** How often the job looks (agents report every 2-15 s). */
export const DRAIN_SAMPLE_EVERY_MS = 5_000;
/** The most points the wizard is sent (at the keep-alive, 12 hours of a stuck drain). */
const MAX_SAMPLES_SHOWN = 720;

const podsOf = (c: { podCount: number | null; userPodCount: number | null }) => c.userPodCount ?? c.podCount;

/** One job run: a sample for each draining cluster whose count is new (a few queries, whatever the fleet size). */
export async function sampleDrains(now = new Date()): Promise<void> {
  const draining = await db().deregistration.findMany({
    where: { step: "draining" },
    select: { clusterId: true, startedAt: true },
  });
  if (draining.length === 0) return;
  const ids = draining.map((d) => d.clusterId);
  const [clusters, latest] = await Promise.all([
    db().cluster.findMany({ where: { id: { in: ids } }, select: { id: true, podCount: true, userPodCount: true } }),
    db().drainSample.groupBy({ by: ["clusterId"], where: { clusterId: { in: ids } }, _max: { at: true } }),
  ]);
  const lastAt = latest.flatMap((l) => (l._max.at ? [{ clusterId: l.clusterId, at: l._max.at }] : []));
  const lastRows = lastAt.length ? await db().drainSample.findMany({ where: { OR: lastAt } }) : [];
  const last = new Map(lastRows.map((r) => [r.clusterId, r]));
  const pods = new Map(clusters.map((c) => [c.id, podsOf(c)]));
  const rows = draining.flatMap((d) => {
    const count = pods.get(d.clusterId) ?? null;
    return isNewDrainSample(last.get(d.clusterId) ?? null, count, now, d.startedAt)
      ? [{ clusterId: d.clusterId, at: now, pods: count }]
      : [];
  });
  if (rows.length) await db().drainSample.createMany({ data: rows });
}

/** A drain starts afresh (start) or is over (cancel): the last drain's points go. */
export async function resetDrainSamples(tx: Tx, clusterId: string, start?: { at: Date; pods: number | null }) {
  await tx.drainSample.deleteMany({ where: { clusterId } });
  // The curve begins at the count the drain started from, not at the job's first look.
  if (start && start.pods !== null) await tx.drainSample.create({ data: { clusterId, at: start.at, pods: start.pods } });
}

/** The drain's recorded points since it started, oldest first (the most recent MAX_SAMPLES_SHOWN). */
export async function drainHistory(clusterId: string, since: Date): Promise<{ at: string; pods: number }[]> {
  const rows = await db().drainSample.findMany({
    where: { clusterId, at: { gte: since } },
    orderBy: { at: "desc" },
    take: MAX_SAMPLES_SHOWN,
    select: { at: true, pods: true },
  });
  return rows.reverse().map((r) => ({ at: r.at.toISOString(), pods: r.pods }));
}
