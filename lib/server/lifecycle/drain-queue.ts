import "server-only";
import type { DrainQueue } from "@/lib/contracts/clusters";
import { ApiError, knownError } from "@/lib/server/api/errors";
import { recordAudit, SYSTEM_ACTOR, type Actor } from "@/lib/server/audit/record-audit";
import { hasRole } from "@/lib/domain/roles";
import type { Selector } from "@/lib/domain/selector";
import { accessOn } from "@/lib/domain/teams";
import { clusterLabels, NO_SUCH_CLUSTER } from "@/lib/server/auth/authorize";
import { accessOfActor } from "@/lib/server/auth/principal";
import { clusterIdsInScope } from "@/lib/server/clusters/cluster-list-sql";
import { db } from "@/lib/server/db/client";
import { inChunks } from "@/lib/server/db/chunks";
import { log } from "@/lib/server/log";
import { actOnDeregistration } from "./deregistration";

// A bulk drain starts `drainStartsPerMinute` clusters at once and queues the rest, as many a minute
// (bulk-start-deregistration.ts): a wide drain that turns out wrong can be cancelled before it has
// emptied half the fleet. Each queued drain starts, and is audited, as the person who confirmed it.

/** How many queued drains one run of the job starts at most (the rest are due again next run). */
const START_BATCH = 50;

export type QueuedDrainInput = { clusterId: string; notBefore: Date };

/** Puts a bulk drain's later clusters in the queue (a cluster already queued keeps its first turn). */
export async function queueDrains(actor: Actor, batchId: string, reason: string, drains: QueuedDrainInput[]): Promise<void> {
  if (!drains.length) return;
  const queued = new Set(
    (
      await db().queuedDrain.findMany({
        where: { clusterId: { in: drains.map((d) => d.clusterId) } },
        select: { clusterId: true },
      })
    ).map((q) => q.clusterId),
  );
  await db().queuedDrain.createMany({
    data: drains
      .filter((d) => !queued.has(d.clusterId))
      .map((d) => ({
        clusterId: d.clusterId,
        batchId,
        reason,
        actorType: actor.type,
        actorId: actor.id,
        actorLabel: actor.label,
        notBefore: d.notBefore,
      })),
  });
}

/**
 * The job: starts the drains whose turn has come. Each is taken off the queue first (a conditional
 * delete, so two instances never start one twice); a cluster that can no longer start (removed,
 * already draining), or that the person who confirmed it may no longer drain (confirmerMay), is
 * skipped and audited; a server error puts it back for the next run.
 */
export async function startDueDrains(now = new Date()): Promise<number> {
  const due = await db().queuedDrain.findMany({
    where: { notBefore: { lte: now } },
    orderBy: [{ notBefore: "asc" }, { clusterId: "asc" }],
    take: START_BATCH,
  });
  let started = 0;
  for (const q of due) {
    const taken = await db().queuedDrain.deleteMany({ where: { clusterId: q.clusterId, batchId: q.batchId } });
    if (!taken.count) continue;
    const confirmer: Actor = { type: q.actorType as Actor["type"], id: q.actorId, label: q.actorLabel };
    try {
      const actor = await confirmerMay(confirmer, q.clusterId);
      await actOnDeregistration(actor, q.clusterId, { action: "start", reason: q.reason });
      started++;
    } catch (err) {
      const known = knownError(err);
      if (!(known instanceof ApiError) || known.status >= 500) {
        await db()
          .queuedDrain.create({ data: { ...q, notBefore: new Date(now.getTime() + 30_000) } })
          .catch(() => {});
        log.warn("a queued drain could not start; it is tried again in 30 s", { clusterId: q.clusterId, error: String(err) });
        continue;
      }
      await recordAudit(
        db(),
        SYSTEM_ACTOR,
        "cluster.deregistration.queued_skipped",
        { type: "cluster", id: q.clusterId },
        {
          batchId: q.batchId,
          queuedBy: q.actorLabel,
          error: known.code,
          message: known.message,
        },
      );
    }
  }
  return started;
}

/**
 * The person who confirmed a queued drain, as the actor who starts it at its turn, if they may
 * still drain the cluster now, by the same rules as a call of theirs (their fleet role, or a team
 * whose scope holds the cluster, audited under it): a cluster that has left their team's scope
 * meanwhile, or someone who has lost the role, is refused as the API would refuse them (not_found
 * when they no longer see it, forbidden when they see it without the operator role).
 */
async function confirmerMay(confirmer: Actor, clusterId: string): Promise<Actor> {
  const [access, labels] = await Promise.all([accessOfActor(confirmer), clusterLabels(clusterId)]);
  // As authorize.ts: a fleet role that suffices first, else the team that reaches the cluster.
  const reason =
    access && labels
      ? access.fleetRole && hasRole(access.fleetRole, "operator")
        ? { role: access.fleetRole, team: null }
        : accessOn(access, labels)
      : null;
  if (!reason) throw new ApiError("not_found", NO_SUCH_CLUSTER);
  if (!hasRole(reason.role, "operator"))
    throw new ApiError(
      "forbidden",
      `${confirmer.label} is ${reason.role} on this cluster now, and draining it needs an operator.`,
    );
  return { ...confirmer, allowedAs: { role: reason.role, team: reason.team } };
}

/**
 * The queue by batch, oldest first. Through a team (`scope`: its selectors; null: the whole fleet)
 * only the drains of clusters in its scopes: a batch that also holds other clusters shows its
 * in-scope part (how many of its clusters wait, when the next and the last of them start), and a
 * batch with none of its clusters is not there at all. So a team sees every drain coming to its
 * clusters, whoever confirmed it, and nothing of anyone else's.
 */
export async function listDrainQueue(scope: readonly Selector[] | null = null): Promise<DrainQueue> {
  const all = await db().queuedDrain.findMany({ orderBy: [{ queuedAt: "asc" }, { notBefore: "asc" }] });
  const visible = scope ? await clusterIdsInScope(scope) : null;
  const rows = visible ? all.filter((r) => visible.has(r.clusterId)) : all;
  const batches = new Map<string, DrainQueue["batches"][number]>();
  for (const r of rows) {
    const b = batches.get(r.batchId);
    const at = r.notBefore.toISOString();
    if (!b)
      batches.set(r.batchId, {
        batchId: r.batchId,
        by: r.actorLabel,
        reason: r.reason,
        queued: 1,
        queuedAt: r.queuedAt.toISOString(),
        nextAt: at,
        lastAt: at,
      });
    else {
      b.queued++;
      if (at < b.nextAt) b.nextAt = at;
      if (at > b.lastAt) b.lastAt = at;
    }
  }
  return { batches: [...batches.values()] };
}

const NOTHING_WAITING = "No drains of this bulk drain are waiting: they have all started, or were cancelled.";

/**
 * Cancels a bulk drain's drains that have not started (audited); 404 when none wait. Through a
 * team, only those of clusters in its scopes: the batch's other drains wait on untouched, and a
 * batch with none of its clusters waiting answers 404 exactly as an unknown batch does.
 */
export async function cancelDrainBatch(
  actor: Actor,
  batchId: string,
  scope: readonly Selector[] | null = null,
): Promise<{ cancelled: number }> {
  const all = await db().queuedDrain.findMany({ where: { batchId }, select: { clusterId: true } });
  const visible = scope && all.length ? await clusterIdsInScope(scope) : null;
  const waiting = visible ? all.filter((w) => visible.has(w.clusterId)) : all;
  let count = 0;
  for (const chunk of inChunks(waiting.map((w) => w.clusterId)))
    count += (await db().queuedDrain.deleteMany({ where: { batchId, clusterId: { in: chunk } } })).count;
  if (!count) throw new ApiError("not_found", NOTHING_WAITING);
  await recordAudit(db(), actor, "cluster.deregistration.queue_cancel", null, {
    batchId,
    cancelled: count,
    clusterIds: waiting.map((w) => w.clusterId),
    ...(scope ? { leftOutOfScope: all.length - waiting.length } : {}),
  });
  return { cancelled: count };
}
