import "server-only";
import { SUPERSEDED_REASON } from "@/lib/domain/reregistration";
import type { Phase } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { auditRow, recordAudit, type Actor, type AuditRow } from "@/lib/server/audit/record-audit";
import { replaceClusterLabels } from "@/lib/server/clusters/cluster-labels";
import type { Tx } from "@/lib/server/db/client";
import { recordAttemptIn } from "./registration-attempts";
import type { SqlTx } from "@/lib/server/db/sql";
import { inTransaction, type AfterCommit } from "@/lib/server/db/transaction";
import { publish } from "@/lib/server/events/bus";
import { changePhase, type PhaseChange } from "@/lib/server/lifecycle/change-phase";
import { storeCertificate, type CertificateRow } from "@/lib/server/pki/issue-certificate";
import { revokeCertificates } from "@/lib/server/pki/revoke-certificates";
import { consumeTokenUse, tokenStillValid } from "@/lib/server/tokens/consume-token-use";
import { tokenExhausted, tokenRevoked } from "@/lib/server/tokens/token-refusals";
import type { Plan } from "./plan-registration";
import { writeNewCluster, type NewCluster } from "./write-new-cluster";

/** Everything a planned registration writes, whoever asked for it (the agent, or an operator's approval). */
export type RegistrationWrite = {
  plan: Plan;
  clusterId: string;
  now: Date;
  /** Null only for a held use whose token is gone since (an approval after the token was deleted). */
  token: { id: string | null; name: string };
  /** What the agent reported about its cluster (null: not reported; a re-registration then keeps what it had). */
  agent: Omit<NewCluster["cluster"], "id">;
  certificate: CertificateRow;
  actor: Actor;
  /** The attempt-log row ("ok"); null when no agent is on the line (an operator's approval). */
  attempt: { sourceAddress: string | null } | null;
  /**
   * An operator's approval of a new cluster: its token use was held since the request was
   * recorded, `before` runs first in the transaction (the request's conditional state change),
   * and the approval's own audit entry goes with the cluster's.
   */
  approval?: { by: string; requestId: string; before: (tx: SqlTx) => Promise<void>; audit: AuditRow };
};

/**
 * Writes a planned registration in one transaction: the token's use, the cluster (new, claimed
 * or re-registered), its labels, its certificate, the phase change, the audit entry and the
 * attempt; a claim or re-registration also revokes the certificates it supersedes. After the
 * commit the cluster's desired policy revisions are computed (the label door queues it) and
 * cluster.registered is published.
 * A new cluster keeps its one-statement form (write-new-cluster.ts): it is what a wave is made of.
 * The transaction is opened here, not by the caller, because its kind follows the plan: a new
 * cluster's runs on the driver, a claim's or a re-registration's through Prisma.
 */
export async function writeRegistration(w: RegistrationWrite): Promise<void> {
  const { plan, clusterId, now } = w;
  const phase = (from: Phase | null, to: Phase, reason: string): PhaseChange => ({
    clusterId,
    clusterName: w.agent.name,
    from,
    to,
    reason,
    at: now,
    // cluster.registered is published below, once the cluster's desired policies are known.
    publish: false,
  });
  if (plan.kind === "new") {
    await writeNewCluster({
      tokenId: w.token.id,
      tokenUse: w.approval ? "held" : "consume",
      now,
      cluster: { id: clusterId, ...w.agent },
      labels: plan.labels,
      certificate: w.certificate,
      phase: {
        ...phase(
          null,
          "Registration",
          `registered with token ${w.token.name}${w.approval ? `, approved by ${w.approval.by}` : ""}`,
        ),
        from: null,
      },
      audit: [
        auditRow(w.actor, "cluster.register", { type: "cluster", id: clusterId }, auditDetails(w)),
        ...(w.approval ? [w.approval.audit] : []),
      ],
      attempt: w.attempt,
      before: w.approval?.before,
    });
  } else {
    await inTransaction((tx, afterCommit) => writeExisting(tx, afterCommit, w, plan, phase));
  }
  // Both writers queued the desired policy revisions' recomputation, done by now.
  publish({
    type: "cluster.registered",
    clusterId,
    name: w.agent.name,
    reregistered: plan.kind === "reregister",
    at: now.toISOString(),
  });
}

function auditDetails(w: RegistrationWrite, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { plan } = w;
  return {
    name: w.agent.name,
    tokenId: w.token.id,
    ...(plan.proof ? { proof: plan.proof, tokenUseConsumed: plan.consumesUse } : {}),
    ...(plan.kind === "claim" ? { claimed: true } : {}),
    ...(w.approval ? { requestId: w.approval.requestId, approvedBy: w.approval.by } : {}),
    certificateSerial: w.certificate.serial,
    labels: plan.labels,
    ...extra,
  };
}

/** A claim or a re-registration: the same cluster id, a new certificate, the old ones revoked. */
async function writeExisting(
  tx: Tx,
  afterCommit: AfterCommit,
  w: RegistrationWrite,
  plan: Extract<Plan, { kind: "claim" | "reregister" }>,
  phase: (from: Phase | null, to: Phase, reason: string) => PhaseChange,
): Promise<void> {
  const { clusterId, now, agent, token } = w;
  // An agent is on the line with its token: only an approval's held use may have lost its token.
  const tokenId = token.id!;
  if (plan.consumesUse) {
    // Lost the race for the last use (or the token was revoked a moment ago).
    if (!(await consumeTokenUse(tx, tokenId, now))) throw tokenExhausted();
  } else if (!(await tokenStillValid(tx, tokenId, now))) {
    // A kept-key re-registration spends nothing, but the token must still be valid now.
    throw tokenRevoked();
  }
  // A re-registering agent that could not read /version keeps the version last reported.
  const facts = {
    agentVersion: agent.agentVersion,
    ...(agent.kubernetesVersion ? { kubernetesVersion: agent.kubernetesVersion } : {}),
    ...(agent.clusterUid ? { clusterUid: agent.clusterUid } : {}),
    registrationTokenId: tokenId,
  };
  // A bound token is an admin's word that this agent is the cluster (perhaps rebuilt): it brings
  // its reported identity. A kept key proves the same agent: what it registered with stays.
  const takesIdentity = plan.kind !== "reregister" || plan.proof === "boundToken";
  const identity = takesIdentity ? { ...facts, caFingerprint: agent.caFingerprint, apiServerUrl: agent.apiServerUrl } : facts;
  const { existing } = plan;
  // Same id, new certificate, old ones revoked; unless someone changed the cluster meanwhile: a
  // claim needs it still Provisioning, a re-registration needs it not being removed. (The
  // sweeper moving a cluster from Registration to Active at its first heartbeat is no reason
  // to refuse an agent's retry.) The row stays locked until commit, so the phase read below holds.
  const claimed = await tx.cluster.updateMany({
    where:
      plan.kind === "claim"
        ? { id: existing.id, phase: "Provisioning" }
        : { id: existing.id, phase: { notIn: ["Provisioning", "Draining", "Deregistration"] } },
    data: { ...identity, registeredAt: existing.registeredAt ?? now },
  });
  if (claimed.count === 0)
    throw new ApiError("cluster_conflict", `The cluster ${agent.name} changed while registering; try again.`);
  const phaseNow = (await tx.cluster.findUniqueOrThrow({ where: { id: existing.id }, select: { phase: true } })).phase as Phase;
  const revoked = await revokeCertificates(tx, afterCommit, {
    clusterId,
    certificates: "current",
    kind: SUPERSEDED_REASON,
    note: "superseded by re-registration",
    at: now,
  });
  await replaceClusterLabels(tx, afterCommit, [{ clusterId, labels: plan.labels }]);
  await storeCertificate(tx, w.certificate);
  const auditIdentity: Record<string, unknown> = {};
  if (plan.kind === "reregister") {
    for (const field of ["caFingerprint", "apiServerUrl"] as const) {
      if (existing[field] === agent[field]) continue;
      auditIdentity[field] = takesIdentity
        ? { from: existing[field], to: agent[field] }
        : { kept: existing[field], reported: agent[field] };
    }
  }
  // A claim moves the pre-created cluster out of Provisioning (the update above already checked
  // its phase); a re-registration keeps its phase and records why.
  await changePhase(
    tx,
    afterCommit,
    plan.kind === "reregister"
      ? phase(phaseNow, phaseNow, `re-registered (proof: ${plan.proof}) with token ${token.name}; new certificate issued`)
      : phase(phaseNow, "Registration", `claimed (proof: boundToken) with token ${token.name}`),
  );
  await recordAudit(
    tx,
    w.actor,
    plan.kind === "reregister" ? "cluster.reregister" : "cluster.register",
    { type: "cluster", id: clusterId },
    auditDetails(w, {
      ...(Object.keys(auditIdentity).length ? { identity: auditIdentity } : {}),
      ...(revoked.length ? { revokedCertificates: revoked } : {}),
    }),
  );
  if (w.attempt) {
    await recordAttemptIn(tx, {
      result: "ok",
      sourceAddress: w.attempt.sourceAddress,
      tokenId,
      clusterName: agent.name,
      clusterId,
    });
  }
}
