import "server-only";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import {
  countByStatus,
  countHealth,
  enrollmentInScope,
  longestNotReady,
  missingLabel,
  provisioningDurations,
  provisioningNow,
  sameClusterAttention,
  sameClusterPeers,
  scopeIds,
  snoozedClusters,
} from "@/lib/server/clusters/cluster-list-sql";
import { asDate } from "@/lib/server/db/driver-values";
import { columns, queryRows, sql } from "@/lib/server/db/sql";
import { statusCounts } from "@/lib/server/events/fleet-summary";
import { enrollmentSummary } from "@/lib/server/lifecycle/enrollment";
import { tallyRegistrations } from "@/lib/domain/registration-errors";
import { CHECKLIST_LABELS } from "@/lib/domain/enrollment";
import { PROVISIONING_OBJECTIVE_MINUTES, provisioningTimes } from "@/lib/domain/provisioning-time";
import type { Selector } from "@/lib/domain/selector";
import { countPending } from "@/lib/server/registration-requests/pending-count";
import { processSingleton } from "@/lib/server/process-singletons";

const MINUTE = 60_000;
export const REGISTRATION_OBJECTIVE = 0.999;
/** The registration card's window, which the provisioning figures share. */
const WINDOW_HOURS = 24;

/**
 * Heartbeats per minute across the fleet for the last `minutes` minutes, zeros included: of one
 * cluster, or of the clusters in `scope` (a team member's Overview) when one is given.
 */
export async function heartbeatsPerMinute(
  minutes: number,
  now = new Date(),
  clusterId?: string,
  scope: readonly Selector[] | null = null,
) {
  const end = Math.floor(now.getTime() / MINUTE) * MINUTE;
  const start = end - (minutes - 1) * MINUTE;
  const byMinute = scope
    ? await bucketsInScope(new Date(start), scope)
    : clusterId
      ? await bucketSums(start, clusterId)
      : await fleetBuckets(start, end);
  return Array.from({ length: minutes }, (_, i) => {
    const at = start + i * MINUTE;
    return { at: new Date(at).toISOString(), count: byMinute.get(at) ?? 0 };
  });
}

/** Heartbeats per minute since `start`, of one cluster or of the whole fleet. */
async function bucketSums(start: number, clusterId?: string): Promise<Map<number, number>> {
  const rows = await db().heartbeatBucket.groupBy({
    by: ["bucketStart"],
    where: { bucketStart: { gte: new Date(start) }, ...(clusterId ? { clusterId } : {}) },
    _sum: { count: true },
  });
  return new Map(rows.map((r) => [r.bucketStart.getTime(), r._sum.count ?? 0]));
}

/**
 * A minute this many minutes before the current one is complete: writers flush their counts every
 * 5 s. The fleet's totals of complete minutes are summed once per process and kept: at 100,000
 * clusters a minute is 100,000 bucket rows, and the Overview shows 15 minutes on every load.
 */
const SETTLED_MINUTES = 2;
const settledTotals = () => processSingleton("fleet-heartbeat-minutes", () => new Map<number, number>());

async function fleetBuckets(start: number, end: number): Promise<Map<number, number>> {
  const settled = settledTotals();
  for (const at of settled.keys()) if (at < start) settled.delete(at);
  // Settled by the clock, whatever instant the caller asks about.
  const settledEnd = Math.min(end, Math.floor(Date.now() / MINUTE) * MINUTE) - SETTLED_MINUTES * MINUTE;
  let from = start;
  while (from < settledEnd && settled.has(from)) from += MINUTE;
  const fresh = await bucketSums(from);
  for (let at = from; at < settledEnd; at += MINUTE) settled.set(at, fresh.get(at) ?? 0);
  const byMinute = new Map(fresh);
  for (const [at, n] of settled) if (at >= start) byMinute.set(at, n);
  return byMinute;
}

const bucket = columns("HeartbeatBucket", "h");
const certificate = columns("Certificate", "k");
const cluster = columns("Cluster", "c");

/** Heartbeats per minute since `start` of the clusters in these scopes (the buckets' (bucketStart) index, then their cluster). */
async function bucketsInScope(start: Date, scope: readonly Selector[]): Promise<Map<number, number>> {
  const rows = await queryRows<{ at: unknown; n: unknown }>(
    sql`SELECT ${bucket("bucketStart")} AS at, sum(${bucket("count")}) AS n FROM ${bucket.table}
        WHERE ${bucket("bucketStart")} >= ${start} AND ${bucket("clusterId")} IN (${scopeIds(scope)}) GROUP BY ${bucket("bucketStart")}`,
  );
  return new Map(rows.map((r) => [asDate(r.at)!.getTime(), Number(r.n)]));
}

/** Up to `limit` unrevoked certificates expiring before `before`, soonest first, of the clusters in `scope` (the whole fleet: null). */
async function certificatesExpiring(before: Date, limit: number, scope: readonly Selector[] | null) {
  if (!scope)
    return db().certificate.findMany({
      where: { revokedAt: null, notAfter: { lte: before } },
      orderBy: { notAfter: "asc" },
      take: limit,
      select: { serial: true, notAfter: true, cluster: { select: { id: true, name: true } } },
    });
  const rows = await queryRows<{ serial: string; notAfter: unknown; id: string; name: string }>(
    sql`SELECT ${certificate("serial")} AS serial, ${certificate("notAfter")} AS "notAfter", ${cluster("id")} AS id, ${cluster("name")} AS name
        FROM ${certificate.table} JOIN ${cluster.table} ON ${cluster("id")} = ${certificate("clusterId")}
        WHERE ${certificate("revokedAt")} IS NULL AND ${certificate("notAfter")} <= ${before} AND ${certificate("clusterId")} IN (${scopeIds(scope)})
        ORDER BY ${certificate("notAfter")} ASC LIMIT ${limit}`,
  );
  return rows.map((r) => ({ serial: r.serial, notAfter: asDate(r.notAfter)!, cluster: { id: r.id, name: r.name } }));
}

/**
 * The enrollment card of a team member's Overview: their clusters' stored checklists, as of the
 * server's last evaluation (null before its first, as for the fleet).
 */
async function enrollmentOf(scope: readonly Selector[]) {
  const fleet = enrollmentSummary();
  if (!fleet) return null;
  const figures = await enrollmentInScope(scope);
  return { at: fleet.at, ...figures, labels: { ...CHECKLIST_LABELS, ...fleet.labels } };
}

/** The listed clusters' names and status facts, in the ids' order. */
async function byIds(ids: string[]) {
  const rows = await db().cluster.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, statusChangedAt: true, phaseChangedAt: true, lastHeartbeatAt: true, apiServerHealth: true },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The stage a rollout awaiting approval starts once approved. */
function nextStageName(r: { stages: string; currentStage: number }): string {
  const stages = JSON.parse(r.stages) as { name?: string }[];
  return stages[r.currentStage + 1]?.name ?? `stage ${r.currentStage + 2}`;
}

/**
 * The Overview: of the whole fleet (`scope` null, a fleet role), or of the clusters in the
 * caller's teams' scopes. A team member's is bounded in every figure and list; what only the fleet
 * as a whole has (registration attempts, the approval queue and rollouts, the once-a-minute
 * status samples) is left out for them (null), never shown fleet-wide.
 */
export async function overview(scope: readonly Selector[] | null = null, teams: readonly string[] = []) {
  const now = new Date();
  const settings = await getSettings();
  const fleetWide = scope === null;
  const dayAgo = new Date(now.getTime() - WINDOW_HOURS * 3600_000);
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
    scopedEnrollment,
    provisioningDone,
    provisioningOpen,
  ] = await Promise.all([
    fleetWide ? statusCounts(now) : countByStatus(now, settings.notReadyThresholdSeconds, undefined, scope),
    heartbeatsPerMinute(15, now, undefined, scope),
    fleetWide
      ? db().fleetSample.findMany({ where: { at: { gte: new Date(now.getTime() - 6 * 3600_000) } }, orderBy: { at: "asc" } })
      : null,
    // Sums: a row may stand for many refusals (counted past their source's budget).
    fleetWide
      ? db().registrationAttempt.groupBy({ by: ["result"], where: { at: { gte: dayAgo } }, _sum: { count: true } })
      : null,
    longestNotReady(now, settings.notReadyThresholdSeconds, 5, scope).then(byIds),
    certificatesExpiring(new Date(now.getTime() + 7 * 86_400_000), 5, scope),
    // Clusters lacking any required label: one query per required key.
    Promise.all(settings.requiredLabels.map((key) => missingLabel(key, 20, now, scope).then(byIds))),
    countHealth("flapping", now, settings, scope),
    countHealth("degraded", now, settings, scope),
    sameClusterAttention(10, now, scope).then(async ({ count, ids }) => {
      const [rows, peers] = await Promise.all([byIds(ids), sameClusterPeers(ids, scope)]);
      return { total: count, items: rows.map((c) => ({ id: c.id, name: c.name, sameAs: peers.get(c.id) ?? [] })) };
    }),
    snoozedClusters(10, now, scope).then(async ({ count, ids }) => {
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
    fleetWide ? countPending() : null,
    fleetWide
      ? db().rollout.findMany({
          where: { state: "AwaitingApproval" },
          select: { id: true, name: true, stages: true, currentStage: true },
          orderBy: { updatedAt: "asc" },
          take: 10,
        })
      : null,
    fleetWide ? null : enrollmentOf(scope),
    provisioningDurations(dayAgo, scope),
    provisioningNow(now, settings.provisioningThresholdMinutes, 5, scope).then(async (p) => ({
      ...p,
      overdueItems: (await byIds(p.overdueIds)).map((c) => ({ id: c.id, name: c.name, since: c.phaseChangedAt.toISOString() })),
    })),
  ]);

  const missingById = new Map<string, { id: string; name: string; missing: string[] }>();
  candidates.forEach((list, i) => {
    for (const c of list) {
      const entry = missingById.get(c.id) ?? { id: c.id, name: c.name, missing: [] as string[] };
      entry.missing.push(settings.requiredLabels[i]!);
      missingById.set(c.id, entry);
    }
  });

  const byResult = attempts && Object.fromEntries(attempts.map((a) => [a.result, a._sum.count ?? 0]));
  return {
    now: now.toISOString(),
    ...(fleetWide ? {} : { scope: { teams: [...teams] } }),
    counts: { ...counts, total: Object.values(counts).reduce((a, b) => a + b, 0) },
    notReadyThresholdSeconds: settings.notReadyThresholdSeconds,
    health: { flapping, degraded, flappingThresholdPerHour: settings.flappingThresholdPerHour },
    heartbeatsPerMinute: heartbeats,
    statusHistory:
      samples?.map((s) => ({
        at: s.at.toISOString(),
        Ready: s.ready,
        NotReady: s.notReady,
        Pending: s.pending,
        Draining: s.draining,
      })) ?? null,
    registrations: byResult && {
      windowHours: WINDOW_HOURS,
      // Only failures of the system count against the objective; refusals are shown beside it.
      ...tallyRegistrations(byResult),
      objective: REGISTRATION_OBJECTIVE,
      byResult,
    },
    decisions:
      pendingRegistrations === null || awaitingApproval === null
        ? null
        : {
            pendingRegistrations,
            rolloutsAwaitingApproval: awaitingApproval.map((r) => ({ id: r.id, name: r.name, nextStage: nextStageName(r) })),
          },
    // Of the caller's clusters, as every per-cluster figure: a team member's too.
    provisioning: {
      windowHours: WINDOW_HOURS,
      objectiveMinutes: PROVISIONING_OBJECTIVE_MINUTES,
      thresholdMinutes: settings.provisioningThresholdMinutes,
      ...provisioningTimes(provisioningDone),
      provisioning: provisioningOpen.provisioning,
      overThreshold: provisioningOpen.overdue,
      longestOverThreshold: provisioningOpen.overdueItems,
    },
    // From this instance's last enrollment evaluation (every 10 s); null until the first one.
    enrollment: fleetWide ? enrollmentSummary() : scopedEnrollment,
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
