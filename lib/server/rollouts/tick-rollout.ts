import "server-only";
import {
  nextStep,
  pendingMemberAction,
  settleUpgrade,
  upgradeHandoff,
  upgradeSlots,
  type StageSpec,
} from "@/lib/domain/rollouts";
import { describeWindows, windowOpen } from "@/lib/domain/upgrade-windows";
import { agentImageFor } from "@/lib/domain/agent-manifest";
import { healthStatus } from "@/lib/domain/status";
import { env } from "@/lib/env";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { recordAudit, SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import { createDirective } from "@/lib/server/agent-port/directives";
import { changePhase } from "@/lib/server/lifecycle/change-phase";
import { getSettings } from "@/lib/server/settings/settings";
import { log } from "@/lib/server/log";
import { enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";
import { clusterWindowGroups, groupsWithWindows, type WindowGroup } from "@/lib/server/groups/group-windows";
import { outsideTeamScope } from "./rollout-team";
import { currentStageEvidence, evidenceClusters } from "./stage-evidence";

/** Thrown inside a transaction to undo it: the cluster left Active between the read and the claim. */
class NotActive extends Error {}

/**
 * One step of one running rollout (lib/domain/rollouts.ts decides which). Every write is
 * conditional on the state it read, so several instances ticking at once do each thing once.
 */
export async function tickRollout(id: string, now = new Date()): Promise<void> {
  const r = await db().rollout.findUnique({ where: { id }, include: { clusters: true } });
  if (!r || r.state !== "Running") return;
  const { notReadyThresholdSeconds } = await getSettings();
  const clusters = await evidenceClusters(
    db(),
    r.clusters.map((c) => c.clusterId),
  );

  // 1. Settle the clusters that are upgrading: the outcome and the way back to Active together.
  const upgrading = r.clusters.filter((c) => c.state === "Upgrading");
  const directiveIds = upgrading.flatMap((m) => (m.directiveId ? [m.directiveId] : []));
  const acks = new Map(
    (directiveIds.length
      ? await db().directive.findMany({
          where: { id: { in: directiveIds }, failedReason: { not: null } },
          select: { id: true, failedReason: true, failedCode: true },
        })
      : []
    ).map((d) => [d.id, d]),
  );
  for (const m of upgrading) {
    const c = clusters.get(m.clusterId) ?? null;
    const ready = !!c && healthStatus(c, now, notReadyThresholdSeconds) === "Ready";
    const ack = (m.directiveId && acks.get(m.directiveId)) || null;
    // Handed to a GitOps repository: the rollout says which image to put there, and waits.
    const handoff = upgradeHandoff(ack);
    if (handoff && handoff !== m.handoff)
      await db().rolloutCluster.updateMany({
        where: { rolloutId: id, clusterId: m.clusterId, state: "Upgrading" },
        data: { handoff },
      });
    const outcome = settleUpgrade(r, { ...m, ack }, c && { agentVersion: c.agentVersion, ready }, now);
    if (!outcome) continue;
    const settled = await inTransaction(async (tx, afterCommit) => {
      const done = await tx.rolloutCluster.updateMany({
        where: { rolloutId: id, clusterId: m.clusterId, state: "Upgrading" },
        data: { ...outcome, finishedAt: now },
      });
      if (!done.count) return false;
      if (c)
        await changePhase(tx, afterCommit, {
          clusterId: c.id,
          clusterName: c.name,
          from: "Upgrading",
          to: "Active",
          reason: outcome.state === "Succeeded" ? `upgraded to ${r.targetVersion}` : `upgrade failed: ${outcome.error}`,
          at: now,
        });
      if (outcome.state === "Failed")
        await enqueueWebhookEvent(tx, {
          type: "rollout.failed",
          ...(c ? { cluster: { id: c.id, name: c.name } } : {}),
          data: { rolloutId: id, rolloutName: r.name, targetVersion: r.targetVersion, reason: outcome.error },
          occurredAt: now,
        });
      return true;
    });
    if (settled) {
      m.state = outcome.state;
      m.finishedAt = now;
    }
  }

  const evidence = currentStageEvidence(r, clusters, now, notReadyThresholdSeconds);
  const step = nextStep({ ...r, stageCount: (JSON.parse(r.stages) as StageSpec[]).length }, r.clusters, evidence, now);
  // "Waiting for a window" is about starting upgrades; any other step ends it.
  if (step.kind !== "upgrade" && r.waitingReason !== null)
    await db().rollout.updateMany({ where: { id }, data: { waitingReason: null } });
  switch (step.kind) {
    // 2. Too many failures, or a canary not Ready on the target during the soak, pause the rollout.
    case "pause":
      await inTransaction(async (tx) => {
        const paused = await tx.rollout.updateMany({
          where: { id, state: "Running" },
          data: { state: "Paused", pausedReason: step.reason },
        });
        if (!paused.count) return;
        await enqueueWebhookEvent(tx, {
          type: "rollout.paused",
          data: { rolloutId: id, rolloutName: r.name, reason: step.reason, failures: step.failures, by: "system" },
          occurredAt: now,
        });
        await recordAudit(
          tx,
          SYSTEM_ACTOR,
          "rollout.pause",
          { type: "rollout", id },
          step.cause === "canary"
            ? { name: r.name, reason: step.reason, stage: r.currentStage }
            : { name: r.name, reason: "failure threshold reached", failures: step.failures },
        );
        log.warn(`rollout paused: ${step.cause === "canary" ? "a canary is not Ready" : "failure threshold reached"}`, {
          rollout: r.name,
          reason: step.reason,
        });
      });
      return;
    // 3. The current stage finished: wait, then move on (or complete).
    case "stage-finished":
      await db().rollout.updateMany({
        where: { id, currentStage: r.currentStage, stageCompletedAt: null },
        data: { stageCompletedAt: now },
      });
      return;
    case "wait":
      return;
    case "next-stage":
      await db().rollout.updateMany({
        where: { id, currentStage: r.currentStage, state: "Running" },
        data: { currentStage: step.stage, stageCompletedAt: null },
      });
      return;
    case "await-approval":
      await inTransaction(async (tx) => {
        const waiting = await tx.rollout.updateMany({
          where: { id, currentStage: r.currentStage, state: "Running" },
          data: { state: "AwaitingApproval" },
        });
        if (waiting.count)
          await recordAudit(
            tx,
            SYSTEM_ACTOR,
            "rollout.await-approval",
            { type: "rollout", id },
            { name: r.name, stage: r.currentStage + 1 },
          );
      });
      return;
    case "complete":
      await inTransaction(async (tx) => {
        const completed = await tx.rollout.updateMany({
          where: { id, currentStage: r.currentStage, state: "Running" },
          data: { state: "Completed", finishedAt: now },
        });
        if (completed.count) await recordAudit(tx, SYSTEM_ACTOR, "rollout.complete", { type: "rollout", id }, { name: r.name });
      });
      return;
    case "upgrade":
      break;
  }

  // 4. Start more upgrades in this stage, within max unavailable and every window of each
  //    cluster's groups; a cluster NotReady at its turn is skipped, not started, and so is one
  //    outside its team's scope then (a team's rollout).
  const group = r.groupId ? await db().clusterGroup.findUnique({ where: { id: r.groupId } }) : null;
  let slots = upgradeSlots(r.maxUnavailable, group?.maxUnavailable ?? null, r.clusters);
  const pending = r.clusters.filter((x) => x.stage === r.currentStage && x.state === "Pending");
  const closed = await closedWindows(
    pending.map((m) => m.clusterId),
    now,
  );
  for (const m of pending) {
    if (slots <= 0) break;
    const c = clusters.get(m.clusterId);
    const health = c ? healthStatus(c, now, notReadyThresholdSeconds) : "Pending";
    const action = pendingMemberAction(c?.phase ?? null, health);
    if (action.kind === "skip") {
      await db().rolloutCluster.updateMany({
        where: { rolloutId: id, clusterId: m.clusterId, state: "Pending" },
        data: { state: "Skipped", error: action.error, finishedAt: now },
      });
      continue;
    }
    // Outside a window the cluster waits (the rollout says so); it is not skipped.
    if (closed.has(m.clusterId)) continue;
    if (action.kind === "wait" || !c) continue;
    // The claim, the directive and the move to Upgrading commit together or not at all.
    const started = await inTransaction(async (tx, afterCommit) => {
      // A team's rollout never starts a cluster outside the team's scope as it stands now (its
      // labels or the scope may have changed since the plan): skipped, with the reason.
      const outside = r.teamId ? await outsideTeamScope(tx, r.teamId, m.clusterId) : null;
      if (outside) {
        await tx.rolloutCluster.updateMany({
          where: { rolloutId: id, clusterId: m.clusterId, state: "Pending" },
          data: { state: "Skipped", error: outside, finishedAt: now },
        });
        return false;
      }
      const claimed = await tx.rolloutCluster.updateMany({
        where: { rolloutId: id, clusterId: m.clusterId, state: "Pending" },
        data: { state: "Upgrading", startedAt: now },
      });
      if (!claimed.count) return false;
      const upgrading = await changePhase(tx, afterCommit, {
        clusterId: c.id,
        clusterName: c.name,
        from: "Active",
        to: "Upgrading",
        reason: `rollout ${r.name}: upgrading to ${r.targetVersion}`,
        at: now,
      });
      if (!upgrading) throw new NotActive();
      // The full image reference (docs/protocol.md): an in-cluster agent patches its Deployment to it.
      const directiveId = await createDirective(tx, afterCommit, {
        clusterId: m.clusterId,
        type: "upgrade",
        payload: { version: r.targetVersion, image: agentImageFor(env().agentImage, r.targetVersion), rolloutId: id },
      });
      await tx.rolloutCluster.update({
        where: { rolloutId_clusterId: { rolloutId: id, clusterId: m.clusterId } },
        data: { directiveId },
      });
      return true;
    }).catch((err: unknown) => {
      if (err instanceof NotActive) return false; // still Pending: the next tick looks at its phase again
      throw err;
    });
    if (started) slots--;
  }
  const waitingReason = closed.size ? windowWaitReason(closed) : null;
  if (waitingReason !== r.waitingReason)
    await db().rollout.updateMany({ where: { id, state: "Running" }, data: { waitingReason } });
}

/** The clusters (of these) held by a closed upgrade window, each with the first group whose window is closed. */
async function closedWindows(clusterIds: string[], now: Date): Promise<Map<string, WindowGroup>> {
  const closed = new Map<string, WindowGroup>();
  if (!clusterIds.length) return closed;
  const shut = (await groupsWithWindows()).filter((g) => !windowOpen(g.policy, now));
  if (!shut.length) return closed;
  const labels = new Map<string, Record<string, string>>(clusterIds.map((cid) => [cid, {}]));
  for (const l of await db().clusterLabel.findMany({ where: { clusterId: { in: clusterIds } } }))
    labels.get(l.clusterId)![l.key] = l.value;
  for (const [cid, ls] of labels) {
    // A cluster in several groups upgrades only when all their windows are open.
    const first = clusterWindowGroups(ls, shut)[0];
    if (first) closed.set(cid, first);
  }
  return closed;
}

function windowWaitReason(closed: Map<string, WindowGroup>): string {
  const groups = [...new Map([...closed.values()].map((g) => [g.name, g])).values()];
  const named = groups
    .slice(0, 3)
    .map((g) => `${g.name}: ${describeWindows(g.policy)}`)
    .join("; ");
  return `waiting for window: ${closed.size} cluster${closed.size === 1 ? "" : "s"} outside the upgrade windows of ${named}${groups.length > 3 ? ` and ${groups.length - 3} more` : ""}`;
}
