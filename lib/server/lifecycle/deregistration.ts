import "server-only";
import type { Deregistration, DeregistrationRequest, ForcedSkip, VerificationCheck } from "@/lib/contracts/deregistration";
import {
  decide,
  DEREGISTRATION_ACTIONS,
  phaseFor,
  waitingFor,
  type DeregistrationStep,
  type WizardFacts,
} from "@/lib/domain/deregistration";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { changePhase } from "@/lib/server/lifecycle/change-phase";
import { revokeCertificates } from "@/lib/server/pki/revoke-certificates";
import type { Phase } from "@/lib/domain/status";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { createDirective, withdrawDirectives } from "@/lib/server/agent-port/directives";
import { forgetCluster } from "@/lib/server/pki/certificate-cache";
import { forgetClusterHeartbeats } from "@/lib/server/heartbeats/heartbeat-writer";
import { publish } from "@/lib/server/events/bus";
import { log } from "@/lib/server/log";
import { getSettings } from "@/lib/server/settings/settings";
import { unlinkImportedCluster } from "@/lib/server/cluster-api/import-marks";
import { drainHistory, resetDrainSamples } from "./drain-samples";

type Forced = ForcedSkip;
type Check = VerificationCheck;

async function facts(clusterId: string) {
  const [record, cluster] = await Promise.all([
    db().deregistration.findUnique({ where: { clusterId } }),
    db().cluster.findUnique({
      where: { id: clusterId },
      select: { id: true, name: true, podCount: true, userPodCount: true, phase: true },
    }),
  ]);
  const directive = record?.directiveId ? await db().directive.findUnique({ where: { id: record.directiveId } }) : null;
  const { disconnectTimeoutSeconds } = await getSettings();
  const wizard: WizardFacts = {
    disconnectTimeoutSeconds,
    step: (record?.step as DeregistrationStep | undefined) ?? null,
    // Draining waits for the user pods when the agent reports them: a real cluster never reaches zero pods.
    pods: cluster?.userPodCount ?? cluster?.podCount ?? null,
    disconnectAcked: !!directive?.ackedAt,
    disconnectWaitedSeconds: directive ? (Date.now() - directive.createdAt.getTime()) / 1000 : null,
  };
  return { record, cluster, directive, wizard };
}

/** The verify step: every check re-run from the database each time it is shown. */
async function verification(clusterId: string): Promise<Check[]> {
  const [cluster, tombstone, revoked, labels, pools, certs, directives, buckets, rollouts] = await Promise.all([
    db().cluster.findUnique({ where: { id: clusterId }, select: { id: true } }),
    db().clusterTombstone.findUnique({ where: { clusterId } }),
    db().revokedCertificate.findMany({ where: { clusterId }, select: { reason: true } }),
    db().clusterLabel.count({ where: { clusterId } }),
    db().nodePool.count({ where: { clusterId } }),
    db().certificate.count({ where: { clusterId } }),
    db().directive.count({ where: { clusterId } }),
    db().heartbeatBucket.count({ where: { clusterId } }),
    db().rolloutCluster.count({ where: { clusterId } }),
  ]);
  const leftovers = { labels, nodePools: pools, certificates: certs, directives, heartbeatHistory: buckets, rollouts };
  const left = Object.entries(leftovers).filter(([, n]) => n > 0);
  const refused = revoked.filter((r) => r.reason === "deregistered").length;
  return [
    {
      key: "record-removed",
      label: "Cluster record removed",
      ok: !cluster,
      detail: cluster ? "the cluster record still exists" : "no cluster record with this id",
    },
    {
      key: "certificates-refused",
      label: "Certificates refused",
      ok: refused > 0 && refused === revoked.length,
      detail: `${refused} certificate(s) on the deregistered list; the agent port answers them 410 cluster_deregistered`,
    },
    {
      key: "no-heartbeat-accepted",
      label: "No heartbeat accepted since",
      ok: !cluster && buckets === 0,
      detail: buckets === 0 ? "no heartbeat recorded for this cluster since removal" : `${buckets} heartbeat record(s) remain`,
    },
    {
      key: "nothing-left",
      label: "Nothing left that references the cluster",
      ok: left.length === 0,
      detail: left.length
        ? `left behind: ${left.map(([k, n]) => `${k} ${n}`).join(", ")}`
        : "labels, node pools, certificates, directives, history: none",
    },
    {
      key: "tombstone",
      label: "Tombstone kept",
      ok: !!tombstone,
      detail: tombstone ? `removed by ${tombstone.deregisteredBy}` : "no tombstone",
    },
  ];
}

export async function getDeregistration(clusterId: string): Promise<Deregistration> {
  const { record, cluster, directive, wizard } = await facts(clusterId);
  if (!record && !cluster) throw new ApiError("not_found", "No cluster or deregistration with this id.");
  const step = wizard.step;
  const [checks, history] = await Promise.all([
    step === "removed" ? verification(clusterId) : null,
    // The drain chart's whole curve, from the server's record (it is drawn while draining).
    step === "draining" && record ? drainHistory(clusterId, record.startedAt) : [],
  ]);
  const actions = DEREGISTRATION_ACTIONS.filter((a) => {
    const d = decide(wizard, a, true, "probe");
    return d.ok;
  });
  return {
    clusterId,
    clusterName: record?.clusterName ?? cluster?.name ?? null,
    step,
    startedAt: record?.startedAt.toISOString() ?? null,
    startedBy: record?.startedBy ?? null,
    stepStartedAt: record?.stepStartedAt.toISOString() ?? null,
    waitingFor: waitingFor(wizard),
    workloads: { pods: wizard.pods, atStart: record?.workloadsAtStart ?? null, history },
    disconnect: directive
      ? {
          directiveId: directive.id,
          sentAt: directive.createdAt.toISOString(),
          acknowledged: !!directive.ackedAt,
          acknowledgedAt: directive.ackedAt?.toISOString() ?? null,
          failedReason: directive.failedReason,
          timeoutSeconds: wizard.disconnectTimeoutSeconds,
        }
      : null,
    forced: record ? (JSON.parse(record.forced) as Forced[]) : [],
    verification: checks ? { checkedAt: new Date().toISOString(), passed: checks.every((c) => c.ok), checks } : null,
    finishedAt: record?.finishedAt?.toISOString() ?? null,
    availableActions: actions,
  };
}

/** The phase moved between reading and writing (the sweeper's Registration -> Active, an upgrade). */
class PhaseMovedMeanwhile extends Error {}

/**
 * One wizard action. Optimistic: the facts are read, the step decided, and the phase moved only if
 * it is still what was read; when something else moved it meanwhile, nothing is written and the
 * action is decided again on fresh facts (a cluster promoted to Active a moment after registering
 * can still be drained; one whose upgrade began is refused by the decision itself).
 */
export async function actOnDeregistration(actor: Actor, clusterId: string, input: DeregistrationRequest) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await actOnce(actor, clusterId, input);
    } catch (err) {
      if (!(err instanceof PhaseMovedMeanwhile)) throw err;
      if (attempt === 3) throw new ApiError("invalid_transition", "The cluster changed meanwhile; look again and retry.");
    }
  }
}

async function actOnce(actor: Actor, clusterId: string, input: DeregistrationRequest) {
  const { record, cluster, wizard } = await facts(clusterId);
  if (!cluster && !record) throw new ApiError("not_found", "No cluster with this id.");
  const decision = decide(wizard, input.action, !!input.force, input.reason);
  if (!decision.ok) throw new ApiError(decision.code, decision.message);
  if (!cluster) throw new ApiError("invalid_transition", "The cluster is already removed.");

  const now = new Date();
  const forced: Forced[] = record && input.action !== "start" ? (JSON.parse(record.forced) as Forced[]) : [];
  if (decision.forced)
    forced.push({ step: wizard.step ?? "", action: input.action, by: actor.label, reason: input.reason!, at: now.toISOString() });
  const audit = {
    name: cluster.name,
    step: { from: wizard.step, to: decision.next },
    ...(decision.forced ? { forced: true, reason: input.reason } : {}),
    ...(input.reason && !decision.forced ? { reason: input.reason } : {}),
  };

  if (decision.next === "removed") {
    await removeCluster(actor, cluster, forced, input.reason ?? null, audit, "by-person");
  } else {
    await inTransaction(async (tx, afterCommit) => {
      let directiveId = record?.directiveId ?? null;
      if (input.action === "start") directiveId = null;
      if (decision.next === "draining") {
        await createDirective(tx, afterCommit, { clusterId, type: "drain", payload: {} });
        await resetDrainSamples(tx, clusterId, { at: now, pods: cluster.userPodCount ?? cluster.podCount });
      }
      if (decision.next === "disconnecting")
        directiveId = await createDirective(tx, afterCommit, {
          clusterId,
          type: "disconnect",
          payload: { reason: "deregistration" },
        });
      if (decision.next === "cancelled") {
        await withdrawDirectives(tx, afterCommit, { clusterId, types: ["drain", "disconnect"] });
        // Tell the agent to resume: drained workloads may come back.
        await createDirective(tx, afterCommit, { clusterId, type: "resume", payload: {} });
        await resetDrainSamples(tx, clusterId);
      }
      const data = {
        clusterName: cluster.name,
        step: decision.next,
        stepStartedAt: now,
        directiveId,
        forced: JSON.stringify(forced),
        ...(input.action === "start"
          ? {
              startedAt: now,
              startedBy: actor.label,
              workloadsAtStart: cluster.userPodCount ?? cluster.podCount,
              reason: input.reason ?? null,
              finishedAt: null,
            }
          : {}),
        ...(decision.next === "cancelled" ? { finishedAt: now } : {}),
      };
      await tx.deregistration.upsert({
        where: { clusterId },
        create: { clusterId, startedBy: actor.label, ...data },
        update: data,
      });
      const phase = phaseFor(decision.next);
      if (phase && phase !== cluster.phase) {
        const moved = await changePhase(tx, afterCommit, {
          clusterId,
          clusterName: cluster.name,
          from: cluster.phase as Phase,
          to: phase,
          reason: `deregistration: ${input.action}${input.reason ? ` (${input.reason})` : ""}`,
          at: now,
        });
        // Someone else moved it since it was read: nothing is written, and the action is decided again.
        if (!moved) throw new PhaseMovedMeanwhile();
      } else {
        // The phase stays (workloads moved), but the wizard's step changed (directives queue their own refresh).
        afterCommit(() => publish({ type: "cluster.updated", clusterId, name: cluster.name, at: now.toISOString() }));
      }
      await recordAudit(tx, actor, `deregistration.${input.action}`, { type: "cluster", id: clusterId }, audit);
    });
  }
  return getDeregistration(clusterId);
}

/**
 * Cluster API is deleting the cluster: its deregistration starts at once at "disconnecting", the
 * drain recorded as skipped (the cluster is going away, there is nowhere to move workloads to), a
 * disconnect sent, and every certificate revoked now, so nothing more is accepted from it. The record
 * goes when the CAPI Cluster is gone (removeDeletedCluster). False when it was already under way.
 */
export async function startDeletionDeregistration(actor: Actor, clusterId: string, reason: string): Promise<boolean> {
  const now = new Date();
  return inTransaction(async (tx, afterCommit) => {
    const cluster = await tx.cluster.findUnique({
      where: { id: clusterId },
      select: { name: true, phase: true, podCount: true, userPodCount: true },
    });
    if (!cluster || cluster.phase === "Deregistration") return false;
    const forced: Forced[] = [
      { step: cluster.phase, action: "start", by: actor.label, reason: `${reason}: drain skipped`, at: now.toISOString() },
    ];
    const directiveId = await createDirective(tx, afterCommit, {
      clusterId,
      type: "disconnect",
      payload: { reason: "deregistration" },
    });
    const serials = await revokeCertificates(tx, afterCommit, {
      clusterId,
      certificates: "all",
      kind: "deregistered",
      note: reason,
      at: now,
    });
    const data = {
      clusterName: cluster.name,
      step: "disconnecting",
      startedAt: now,
      startedBy: actor.label,
      stepStartedAt: now,
      workloadsAtStart: cluster.userPodCount ?? cluster.podCount,
      directiveId,
      reason,
      forced: JSON.stringify(forced),
      finishedAt: null,
    };
    await tx.deregistration.upsert({ where: { clusterId }, create: { clusterId, ...data }, update: data });
    const moved = await changePhase(tx, afterCommit, {
      clusterId,
      clusterName: cluster.name,
      from: cluster.phase as Phase,
      to: "Deregistration",
      reason,
      at: now,
    });
    if (!moved) throw new ApiError("invalid_transition", "The cluster changed meanwhile; the next run tries again.");
    afterCommit(() => forgetCluster(clusterId));
    await recordAudit(
      tx,
      actor,
      "deregistration.start",
      { type: "cluster", id: clusterId },
      {
        name: cluster.name,
        step: { from: null, to: "disconnecting" },
        reason,
        skipped: ["draining"],
        revokedCertificates: serials,
      },
    );
    return true;
  });
}

/** The CAPI Cluster is gone: the fleet's record goes too (a deregistration started by its deletion, finished). */
export async function removeDeletedCluster(actor: Actor, clusterId: string, reason: string): Promise<void> {
  const cluster = await db().cluster.findUnique({ where: { id: clusterId }, select: { id: true, name: true, phase: true } });
  if (!cluster) return;
  // Gone before its deletion was seen (the source was not watched meanwhile): the same start first.
  if (cluster.phase !== "Deregistration") await startDeletionDeregistration(actor, clusterId, reason);
  const record = await db().deregistration.findUnique({ where: { clusterId } });
  const forced = record ? (JSON.parse(record.forced) as Forced[]) : [];
  await removeCluster(
    actor,
    cluster,
    forced,
    reason,
    { name: cluster.name, step: { from: "disconnecting", to: "removed" }, reason },
    "by-deletion",
  );
}

/**
 * Step 4: the record, its labels, pools, directives and certificates go; the audit trail and a
 * tombstone stay. Removed by a person (or their automation), a cluster Cluster API created is
 * marked in the same transaction not to be imported again (lib/server/cluster-api/import-marks.ts);
 * removed because Cluster API deleted it, it is only unlinked.
 */
async function removeCluster(
  actor: Actor,
  cluster: { id: string; name: string },
  forced: Forced[],
  reason: string | null,
  audit: Record<string, unknown>,
  cause: "by-person" | "by-deletion",
) {
  const now = new Date();
  const clusterId = cluster.id;
  await inTransaction(async (tx, afterCommit) => {
    const full = await tx.cluster.findUniqueOrThrow({
      where: { id: clusterId },
      select: { caFingerprint: true, labels: { select: { key: true, value: true } } },
    });
    // Every certificate the cluster ever had is refused from now on as "deregistered" (410).
    const serials = await revokeCertificates(tx, afterCommit, {
      clusterId,
      certificates: "all",
      kind: "deregistered",
      note: "deregistered",
      at: now,
    });
    await tx.rolloutCluster.deleteMany({ where: { clusterId } });
    await unlinkImportedCluster(tx, clusterId, cause === "by-person" ? { by: actor.label, at: now } : null);
    await tx.cluster.delete({ where: { id: clusterId } }); // cascades: labels, node pools, certificates, directives, heartbeat history
    await tx.clusterTombstone.upsert({
      where: { clusterId },
      create: {
        clusterId,
        name: cluster.name,
        caFingerprint: full.caFingerprint,
        deregisteredAt: now,
        deregisteredBy: actor.label,
        reason,
      },
      update: { name: cluster.name, caFingerprint: full.caFingerprint, deregisteredAt: now, deregisteredBy: actor.label, reason },
    });
    await tx.deregistration.update({
      where: { clusterId },
      data: { step: "removed", stepStartedAt: now, finishedAt: now, forced: JSON.stringify(forced) },
    });
    // Queued first: buffered heartbeats and cached certificates go before anyone hears of the removal.
    afterCommit(() => forgetCluster(clusterId));
    afterCommit(() => forgetClusterHeartbeats(clusterId));
    await changePhase(tx, afterCommit, {
      clusterId,
      clusterName: cluster.name,
      from: "Deregistration",
      to: "Removed",
      reason: reason ?? "deregistered",
      at: now,
      labels: Object.fromEntries(full.labels.map((l) => [l.key, l.value])),
    });
    await recordAudit(
      tx,
      actor,
      "cluster.deregister",
      { type: "cluster", id: clusterId },
      { ...audit, revokedCertificates: serials },
    );
  });
  log.info("cluster deregistered", { clusterId, name: cluster.name, by: actor.label });
}
