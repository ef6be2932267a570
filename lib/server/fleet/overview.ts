import "server-only";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import {
  countHealth,
  longestNotReady,
  missingLabel,
  sameClusterAttention,
  sameClusterPeers,
  snoozedClusters,
} from "@/lib/server/clusters/cluster-list-sql";
import { statusCounts } from "@/lib/server/events/fleet-summary";
import { enrollmentSummary } from "@/lib/server/lifecycle/enrollment";
import { tallyRegistrations } from "@/lib/domain/registration-errors";
import { countPending } from "@/lib/server/registration-requests/pending-count";

const MINUTE = 60_000;
export const REGISTRATION_OBJECTIVE = 0.999;

/** Heartbeats per minute across the fleet for the last `minutes` minutes, zeros included. */
export async function heartbeatsPerMinute(minutes: number, now = new Date(), clusterId?: string) {
  const end = Math.floor(now.getTime() / MINUTE) * MINUTE;
  const start = end - (minutes - 1) * MINUTE;
  const rows = await db().heartbeatBucket.groupBy({
    by: ["bucketStart"],
    where: { bucketStart: { gte: new Date(start) }, ...(clusterId ? { clusterId } : {}) },
    _sum: { count: true },
  });
  const byMinute = new Map(rows.map((r) => [r.bucketStart.getTime(), r._sum.count ?? 0]));
  return Array.from({ length: minutes }, (_, i) => {
    const at = start + i * MINUTE;
    return { at: new Date(at).toISOString(), count: byMinute.get(at) ?? 0 };
  });
}

/** The listed clusters' names and status facts, in the ids' order. */
async function byIds(ids: string[]) {
  const rows = await db().cluster.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, statusChangedAt: true, lastHeartbeatAt: true, apiServerHealth: true },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The stage a rollout awaiting approval starts once approved. */
function nextStageName(r: { stages: string; currentStage: number }): string {
  const stages = JSON.parse(r.stages) as { name?: string }[];
  return stages[r.currentStage + 1]?.name ?? `stage ${r.currentStage + 2}`;
}

export async function overview() {
  const now = new Date();
  const settings = await getSettings();
  const dayAgo = new Date(now.getTime() - 24 * 3600_000);
  const [
    counts,
    heartbeats,
    samples,
    attempts,
    notReady,
    expiring,
    candidates,
    flapping,
    degraded,
    sameCluster,
    snoozed,
    pendingRegistrations,
    awaitingApproval,
  ] = await Promise.all([
    statusCounts(now),
    heartbeatsPerMinute(15, now),
    db().fleetSample.findMany({ where: { at: { gte: new Date(now.getTime() - 6 * 3600_000) } }, orderBy: { at: "asc" } }),
    // Sums: a row may stand for many refusals (counted past their source's budget).
    db().registrationAttempt.groupBy({ by: ["result"], where: { at: { gte: dayAgo } }, _sum: { count: true } }),
    longestNotReady(now, settings.notReadyThresholdSeconds, 5).then(byIds),
    db().certificate.findMany({
      where: { revokedAt: null, notAfter: { lte: new Date(now.getTime() + 7 * 86_400_000) } },
      orderBy: { notAfter: "asc" },
      take: 5,
      select: { serial: true, notAfter: true, cluster: { select: { id: true, name: true } } },
    }),
    // Clusters lacking any required label: one query per required key.
    Promise.all(settings.requiredLabels.map((key) => missingLabel(key, 20, now).then(byIds))),
    countHealth("flapping", now, settings),
    countHealth("degraded", now, settings),
    sameClusterAttention(10, now).then(async ({ count, ids }) => {
      const [rows, peers] = await Promise.all([byIds(ids), sameClusterPeers(ids)]);
      return { total: count, items: rows.map((c) => ({ id: c.id, name: c.name, sameAs: peers.get(c.id) ?? [] })) };
    }),
    snoozedClusters(10, now).then(async ({ count, ids }) => {
      const rows = await db().cluster.findMany({
        where: { id: { in: ids } },
        select: { id: true, name: true, snoozedUntil: true, snoozeOwner: true, snoozeReason: true },
        orderBy: [{ snoozedUntil: "asc" }, { id: "asc" }],
      });
      return {
        total: count,
        items: rows.map((c) => ({
          id: c.id,
          name: c.name,
          until: c.snoozedUntil!.toISOString(),
          owner: c.snoozeOwner ?? "",
          reason: c.snoozeReason ?? "",
        })),
      };
    }),
    countPending(),
    db().rollout.findMany({
      where: { state: "AwaitingApproval" },
      select: { id: true, name: true, stages: true, currentStage: true },
      orderBy: { updatedAt: "asc" },
      take: 10,
    }),
  ]);

  const missingById = new Map<string, { id: string; name: string; missing: string[] }>();
  candidates.forEach((list, i) => {
    for (const c of list) {
      const entry = missingById.get(c.id) ?? { id: c.id, name: c.name, missing: [] as string[] };
      entry.missing.push(settings.requiredLabels[i]!);
      missingById.set(c.id, entry);
    }
  });

  const byResult = Object.fromEntries(attempts.map((a) => [a.result, a._sum.count ?? 0]));
  return {
    now: now.toISOString(),
    counts: { ...counts, total: Object.values(counts).reduce((a, b) => a + b, 0) },
    notReadyThresholdSeconds: settings.notReadyThresholdSeconds,
    health: { flapping, degraded, flappingThresholdPerHour: settings.flappingThresholdPerHour },
    heartbeatsPerMinute: heartbeats,
    statusHistory: samples.map((s) => ({
      at: s.at.toISOString(),
      Ready: s.ready,
      NotReady: s.notReady,
      Pending: s.pending,
      Draining: s.draining,
    })),
    registrations: {
      windowHours: 24,
      // Only failures of the system count against the objective; refusals are shown beside it.
      ...tallyRegistrations(byResult),
      objective: REGISTRATION_OBJECTIVE,
      byResult,
    },
    decisions: {
      pendingRegistrations,
      rolloutsAwaitingApproval: awaitingApproval.map((r) => ({ id: r.id, name: r.name, nextStage: nextStageName(r) })),
    },
    // From this instance's last enrollment evaluation (every 10 s); null until the first one.
    enrollment: enrollmentSummary(),
    attention: {
      notReadyLongest: notReady.map((c) => ({
        id: c.id,
        name: c.name,
        since: c.statusChangedAt.toISOString(),
        lastHeartbeatAt: c.lastHeartbeatAt?.toISOString() ?? null,
        reason: c.apiServerHealth === "down" ? "apiServer down" : "no heartbeat",
      })),
      certificatesExpiring: expiring.map((c) => ({
        id: c.cluster.id,
        name: c.cluster.name,
        serial: c.serial,
        notAfter: c.notAfter.toISOString(),
      })),
      missingLabels: [...missingById.values()].slice(0, 10),
      sameCluster,
      snoozed,
    },
  };
}

/** Writes this minute's status counts once (several instances may try; the first wins). */
export async function sampleFleet(now = new Date()): Promise<void> {
  const at = new Date(Math.floor(now.getTime() / MINUTE) * MINUTE);
  if (await db().fleetSample.findUnique({ where: { at } })) return;
  const c = await statusCounts(now);
  await db()
    .fleetSample.create({
      data: {
        at,
        ready: c.Ready ?? 0,
        notReady: c.NotReady ?? 0,
        pending: c.Pending ?? 0,
        draining: c.Draining ?? 0,
        total: Object.values(c).reduce((a, b) => a + b, 0),
      },
    })
    .catch(() => {});
}
