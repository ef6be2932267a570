import "server-only";
import { z } from "zod";
import {
  planStages,
  upgradeWindowsSchema,
  inUpgradeWindow,
  type CreateRolloutInput,
  type StageSpec,
} from "@/lib/domain/rollouts";
import { healthStatus } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { recordAudit, SYSTEM_ACTOR, type Actor } from "@/lib/server/audit/record-audit";
import { matchingClusters } from "@/lib/server/clusters/cluster-sql";
import { parseSelectorParam } from "@/lib/server/clusters/list-clusters";
import { requestedGroupSelector } from "@/lib/server/groups/group-selector";
import { createDirective } from "@/lib/server/agents/directives";
import { invalidateAgentContext } from "@/lib/server/heartbeats/agent-context";
import { getSettings } from "@/lib/server/settings/settings";
import { log } from "@/lib/server/log";
import { agentImageFor } from "@/lib/domain/agent-manifest";
import { env } from "@/lib/env";

const ACTIVE_STATES = ["Running", "Paused"];
const DONE = new Set(["Succeeded", "Failed", "Skipped"]);

export const rolloutActionSchema = z
  .object({ action: z.enum(["pause", "resume", "abort"]), reason: z.string().trim().max(300).optional() })
  .strict();

export async function createRollout(actor: Actor, input: CreateRolloutInput) {
  const group = input.groupId ? await db().clusterGroup.findUnique({ where: { id: input.groupId } }) : null;
  if (input.groupId && !group)
    throw new ApiError("invalid_request", "No such group.", [{ field: "groupId", message: "unknown group" }]);
  // A group whose stored selector is invalid is refused with its problem, not planned as empty.
  const selector = group ? requestedGroupSelector(group, "groupId") : parseSelectorParam(input.selector ?? "");
  const clusters = await matchingClusters(selector);
  if (!clusters.length)
    throw new ApiError("invalid_request", "No cluster matches; nothing to upgrade.", [
      { field: input.selector ? "selector" : "groupId", message: "matches no cluster" },
    ]);
  const busy = await db().rolloutCluster.findFirst({
    where: { clusterId: { in: clusters.map((c) => c.id) }, rollout: { state: { in: ACTIVE_STATES } } },
    select: { rollout: { select: { name: true } } },
  });
  if (busy)
    throw new ApiError(
      "conflict",
      `Some of these clusters are in the unfinished rollout "${busy.rollout.name}"; finish or abort it first.`,
    );
  const plan = planStages(
    clusters.map((c) => c.id),
    input.stages,
  );
  const current = new Map(clusters.map((c) => [c.id, c.agentVersion]));
  const rollout = await db().$transaction(async (tx) => {
    const r = await tx.rollout.create({
      data: {
        name: input.name,
        targetVersion: input.targetVersion,
        groupId: input.groupId ?? null,
        selector: input.selector ?? null,
        stages: JSON.stringify(plan.map((p, i) => ({ ...input.stages[i], name: p.name }))),
        maxUnavailable: input.maxUnavailable,
        waitSeconds: input.waitSeconds,
        failureThreshold: input.failureThreshold,
        clusterTimeoutSeconds: input.clusterTimeoutSeconds,
        state: "Running",
        createdById: actor.id,
      },
    });
    await tx.rolloutCluster.createMany({
      data: plan.flatMap((stage, i) =>
        stage.clusterIds.map((clusterId) => {
          const onTarget = current.get(clusterId) === input.targetVersion;
          return {
            rolloutId: r.id,
            clusterId,
            stage: i,
            fromVersion: current.get(clusterId) ?? null,
            state: onTarget ? "Skipped" : "Pending",
            error: onTarget ? "already on the target version" : null,
          };
        }),
      ),
    });
    await recordAudit(
      tx,
      actor,
      "rollout.create",
      { type: "rollout", id: r.id },
      {
        name: input.name,
        targetVersion: input.targetVersion,
        clusters: clusters.length,
        stages: plan.map((p) => ({ name: p.name, clusters: p.clusterIds.length })),
      },
    );
    return r;
  });
  await tickRollout(rollout.id);
  return getRollout(rollout.id);
}

export async function getRollout(id: string) {
  const r = await db().rollout.findUnique({ where: { id }, include: { clusters: true } });
  if (!r) throw new ApiError("not_found", "No rollout with this id.");
  const names = new Map(
    (
      await db().cluster.findMany({
        where: { id: { in: r.clusters.map((c) => c.clusterId) } },
        select: { id: true, name: true, agentVersion: true },
      })
    ).map((c) => [c.id, c]),
  );
  const specs = JSON.parse(r.stages) as StageSpec[];
  const stages = specs.map((s, i) => {
    const members = r.clusters.filter((c) => c.stage === i);
    const by = (state: string) => members.filter((m) => m.state === state).length;
    return {
      index: i,
      name: s.name,
      total: members.length,
      pending: by("Pending"),
      upgrading: by("Upgrading"),
      succeeded: by("Succeeded"),
      failed: by("Failed"),
      skipped: by("Skipped"),
      state:
        i < r.currentStage || (members.length && members.every((m) => DONE.has(m.state)))
          ? "done"
          : i === r.currentStage
            ? "current"
            : "waiting",
    };
  });
  return {
    id: r.id,
    name: r.name,
    targetVersion: r.targetVersion,
    selector: r.selector,
    groupId: r.groupId,
    state: r.state,
    pausedReason: r.pausedReason,
    currentStage: r.currentStage,
    maxUnavailable: r.maxUnavailable,
    waitSeconds: r.waitSeconds,
    failureThreshold: r.failureThreshold,
    clusterTimeoutSeconds: r.clusterTimeoutSeconds,
    stageCompletedAt: r.stageCompletedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    totals: {
      clusters: r.clusters.length,
      succeeded: r.clusters.filter((c) => c.state === "Succeeded").length,
      failed: r.clusters.filter((c) => c.state === "Failed").length,
      upgrading: r.clusters.filter((c) => c.state === "Upgrading").length,
      skipped: r.clusters.filter((c) => c.state === "Skipped").length,
    },
    stages,
    clusters: r.clusters
      .sort((a, b) => a.stage - b.stage)
      .map((c) => ({
        clusterId: c.clusterId,
        name: names.get(c.clusterId)?.name ?? null,
        stage: c.stage,
        state: c.state,
        fromVersion: c.fromVersion,
        agentVersion: names.get(c.clusterId)?.agentVersion ?? null,
        startedAt: c.startedAt?.toISOString() ?? null,
        finishedAt: c.finishedAt?.toISOString() ?? null,
        error: c.error,
      })),
  };
}

export async function listRollouts() {
  const rows = await db().rollout.findMany({ orderBy: { createdAt: "desc" }, take: 100, select: { id: true } });
  return Promise.all(rows.map((r) => getRollout(r.id)));
}

export async function actOnRollout(actor: Actor, id: string, input: z.infer<typeof rolloutActionSchema>) {
  const r = await db().rollout.findUnique({ where: { id }, include: { clusters: true } });
  if (!r) throw new ApiError("not_found", "No rollout with this id.");
  const from = { pause: "Running", resume: "Paused", abort: null }[input.action];
  if ((from && r.state !== from) || (!from && !ACTIVE_STATES.includes(r.state))) {
    throw new ApiError("invalid_transition", `Cannot ${input.action} a rollout that is ${r.state}.`);
  }
  const now = new Date();
  await db().$transaction(async (tx) => {
    if (input.action === "pause")
      await tx.rollout.update({
        where: { id },
        data: { state: "Paused", pausedReason: input.reason ?? `paused by ${actor.label}` },
      });
    if (input.action === "resume") {
      const failed = r.clusters.filter((c) => c.state === "Failed").length;
      await tx.rollout.update({ where: { id }, data: { state: "Running", pausedReason: null, failureBaseline: failed } });
    }
    if (input.action === "abort") {
      const upgrading = r.clusters.filter((c) => c.state === "Upgrading");
      await tx.directive.deleteMany({
        where: { id: { in: upgrading.map((c) => c.directiveId!).filter(Boolean) }, ackedAt: null },
      });
      await tx.rolloutCluster.updateMany({
        where: { rolloutId: id, state: { in: ["Pending", "Upgrading"] } },
        data: { state: "Skipped", error: "rollout aborted", finishedAt: now },
      });
      await tx.cluster.updateMany({
        where: { id: { in: upgrading.map((c) => c.clusterId) }, phase: "Upgrading" },
        data: { phase: "Active", phaseChangedAt: now },
      });
      await tx.rollout.update({ where: { id }, data: { state: "Aborted", finishedAt: now, pausedReason: input.reason ?? null } });
    }
    await recordAudit(
      tx,
      actor,
      `rollout.${input.action}`,
      { type: "rollout", id },
      { name: r.name, ...(input.reason ? { reason: input.reason } : {}) },
    );
  });
  invalidateAgentContext();
  if (input.action === "resume") await tickRollout(id);
  return getRollout(id);
}

async function setPhase(clusterId: string, name: string, from: string, to: string, reason: string, now: Date) {
  const moved = await db().cluster.updateMany({
    where: { id: clusterId, phase: from },
    data: { phase: to, phaseChangedAt: now },
  });
  if (moved.count)
    await db().clusterEvent.create({
      data: { clusterId, clusterName: name, kind: "phase", fromValue: from, toValue: to, reason, at: now },
    });
}

/**
 * One step of one running rollout. Every write is conditional on the state it read, so several
 * instances ticking at once do each thing once.
 */
export async function tickRollout(id: string, now = new Date()): Promise<void> {
  const r = await db().rollout.findUnique({ where: { id }, include: { clusters: true } });
  if (!r || r.state !== "Running") return;
  const { notReadyThresholdSeconds } = await getSettings();
  const clusters = new Map(
    (
      await db().cluster.findMany({
        where: { id: { in: r.clusters.map((c) => c.clusterId) } },
        select: { id: true, name: true, agentVersion: true, phase: true, lastHeartbeatAt: true, apiServerHealth: true },
      })
    ).map((c) => [c.id, c]),
  );

  // 1. Settle the clusters that are upgrading.
  for (const m of r.clusters.filter((c) => c.state === "Upgrading")) {
    const c = clusters.get(m.clusterId);
    let outcome: { state: string; error: string | null } | null = null;
    if (!c) outcome = { state: "Failed", error: "the cluster was removed during the upgrade" };
    else if (c.agentVersion === r.targetVersion && healthStatus(c, now, notReadyThresholdSeconds) === "Ready")
      outcome = { state: "Succeeded", error: null };
    else if (m.startedAt && now.getTime() - m.startedAt.getTime() > r.clusterTimeoutSeconds * 1000) {
      outcome = {
        state: "Failed",
        error: `not Ready on ${r.targetVersion} within ${r.clusterTimeoutSeconds}s (reports ${c.agentVersion ?? "nothing"})`,
      };
    }
    if (!outcome) continue;
    const done = await db().rolloutCluster.updateMany({
      where: { rolloutId: id, clusterId: m.clusterId, state: "Upgrading" },
      data: { ...outcome, finishedAt: now },
    });
    if (done.count) {
      m.state = outcome.state;
      if (c)
        await setPhase(
          c.id,
          c.name,
          "Upgrading",
          "Active",
          outcome.state === "Succeeded" ? `upgraded to ${r.targetVersion}` : `upgrade failed: ${outcome.error}`,
          now,
        );
    }
  }

  // 2. Too many failures pause the rollout.
  const failures = r.clusters.filter((c) => c.state === "Failed").length - r.failureBaseline;
  if (failures >= r.failureThreshold) {
    const paused = await db().rollout.updateMany({
      where: { id, state: "Running" },
      data: { state: "Paused", pausedReason: `${failures} cluster(s) failed to upgrade (threshold ${r.failureThreshold})` },
    });
    if (paused.count) {
      await recordAudit(
        db(),
        SYSTEM_ACTOR,
        "rollout.pause",
        { type: "rollout", id },
        { name: r.name, reason: "failure threshold reached", failures },
      );
      log.warn("rollout paused: failure threshold reached", { rollout: r.name, failures });
    }
    return;
  }

  // 3. The current stage finished: wait, then move on (or complete).
  const stageMembers = r.clusters.filter((c) => c.stage === r.currentStage);
  const stageCount = (JSON.parse(r.stages) as StageSpec[]).length;
  if (stageMembers.every((m) => DONE.has(m.state))) {
    if (!r.stageCompletedAt) {
      await db().rollout.updateMany({
        where: { id, currentStage: r.currentStage, stageCompletedAt: null },
        data: { stageCompletedAt: now },
      });
      return;
    }
    if (now.getTime() - r.stageCompletedAt.getTime() < r.waitSeconds * 1000) return;
    const last = r.currentStage + 1 >= stageCount;
    await db().rollout.updateMany({
      where: { id, currentStage: r.currentStage, state: "Running" },
      data: last ? { state: "Completed", finishedAt: now } : { currentStage: r.currentStage + 1, stageCompletedAt: null },
    });
    if (last) await recordAudit(db(), SYSTEM_ACTOR, "rollout.complete", { type: "rollout", id }, { name: r.name });
    return;
  }

  // 4. Start more upgrades in this stage, within max unavailable and the group's window.
  const group = r.groupId ? await db().clusterGroup.findUnique({ where: { id: r.groupId } }) : null;
  const windows = group?.upgradeWindows ? upgradeWindowsSchema.safeParse(JSON.parse(group.upgradeWindows)) : null;
  if (windows?.success && !inUpgradeWindow(windows.data, now)) return;
  const limit = Math.min(r.maxUnavailable, group?.maxUnavailable ?? Infinity);
  let slots = limit - r.clusters.filter((c) => c.state === "Upgrading").length;
  let sent = 0;
  for (const m of stageMembers.filter((x) => x.state === "Pending")) {
    if (slots <= 0) break;
    const c = clusters.get(m.clusterId);
    if (!c || ["Draining", "Deregistration", "Provisioning"].includes(c.phase)) {
      // Leaving the fleet (or never joined): nothing to upgrade.
      await db().rolloutCluster.updateMany({
        where: { rolloutId: id, clusterId: m.clusterId, state: "Pending" },
        data: { state: "Skipped", error: c ? `phase ${c.phase}` : "cluster removed", finishedAt: now },
      });
      continue;
    }
    if (c.phase !== "Active") continue; // e.g. still Registration: wait for it to become Active
    const started = await db().$transaction(async (tx) => {
      const claimed = await tx.rolloutCluster.updateMany({
        where: { rolloutId: id, clusterId: m.clusterId, state: "Pending" },
        data: { state: "Upgrading", startedAt: now },
      });
      if (!claimed.count) return false;
      // The full image reference (PROTOCOL.md): an in-cluster agent patches its Deployment to it.
      const directiveId = await createDirective(tx, m.clusterId, "upgrade", {
        version: r.targetVersion,
        image: agentImageFor(env().AGENT_IMAGE, r.targetVersion),
        rolloutId: id,
      });
      await tx.rolloutCluster.update({
        where: { rolloutId_clusterId: { rolloutId: id, clusterId: m.clusterId } },
        data: { directiveId },
      });
      return true;
    });
    if (!started) continue;
    await setPhase(c.id, c.name, "Active", "Upgrading", `rollout ${r.name}: upgrading to ${r.targetVersion}`, now);
    slots--;
    sent++;
  }
  if (sent) invalidateAgentContext();
}

export async function tickRollouts(): Promise<void> {
  const running = await db().rollout.findMany({ where: { state: "Running" }, select: { id: true } });
  for (const r of running) await tickRollout(r.id);
}

export function startRolloutEngine(intervalMs = 2000): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = tickRollouts()
      .catch((err) => log.error("rollout tick failed", { error: String(err) }))
      .finally(() => (busy = false));
  }, intervalMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}
