import "server-only";
import { REGISTRATION_REQUEST_TTL_DAYS } from "@/lib/contracts/registration-requests";
import type { RegisterRequest } from "@/lib/domain/agent-protocol";
import type { Labels } from "@/lib/domain/labels";
import { pendingApprovalReply, type PendingApprovalReply } from "@/lib/domain/registration-approval";
import { storableText } from "@/lib/domain/storable-text";
import { ApiError } from "@/lib/server/api/errors";
import { randomId } from "@/lib/server/auth/secrets";
import { auditRow, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { log } from "@/lib/server/log";
import { consumeTokenUse } from "@/lib/server/tokens/consume-token-use";
import { enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";
import { isUniqueViolation } from "@/lib/server/registration/write-new-cluster";
import { expireRequest } from "./expire-requests";
import { certificateKeyHash } from "./key-hash";
import { publishPendingCount } from "./pending-count";
import type { RequestRow } from "./request-view";

// The agent's side of a registration that waits for an operator (docs/protocol.md, "Approval"):
// the first request is recorded, holding one of its token's uses; the agent's repeats (same name,
// same key, same token) are answered from the request's state.

const DAY_MS = 86_400_000;

/** What a repeat learns once its request was approved: the cluster and its certificate. */
export type Collected = { clusterId: string; certificatePem: string };

export type RepeatAnswer = { kind: "pending"; reply: PendingApprovalReply } | { kind: "collect"; collected: Collected };

/** The newest request for this name, key and token, if the agent asked before. */
export function findRepeat(name: string, keyHash: string, tokenId: string): Promise<RequestRow | null> {
  return db().registrationRequest.findFirst({
    where: { name, keyHash, tokenId },
    orderBy: { firstSeenAt: "desc" },
  });
}

const deniedError = (r: RequestRow) =>
  new ApiError("registration_denied", `An operator denied this registration: ${r.reason ?? "no reason given"}`, {
    requestId: r.id,
  });

const expiredError = (r: RequestRow) =>
  new ApiError(
    "registration_request_expired",
    `The registration request waited ${REGISTRATION_REQUEST_TTL_DAYS} days without a decision and expired; register again to ask anew.`,
    { requestId: r.id },
  );

/**
 * A repeat answered from its request: 202 while pending (even with a token expired since: the
 * request was checked when recorded), 403 once denied, 410 once expired, and the approved
 * cluster's certificate once approved. Null: nothing to collect any more (the certificate was
 * replaced or the cluster removed since); the caller registers it like any other request.
 */
export async function answerRepeat(r: RequestRow, now: Date): Promise<RepeatAnswer | null> {
  switch (r.state) {
    case "pending":
      if (r.expiresAt.getTime() <= now.getTime()) {
        await expireRequest(r.id, now);
        throw expiredError(r);
      }
      // Only the time: an agent repeating every few seconds for days costs one small update each.
      await db().registrationRequest.update({ where: { id: r.id }, data: { lastSeenAt: now } });
      return { kind: "pending", reply: pendingApprovalReply(r.id) };
    case "denied":
      throw deniedError(r);
    case "expired":
      throw expiredError(r);
    case "approved":
    case "completed": {
      const collected = r.clusterId ? await approvedCertificate(r.clusterId, r.keyHash) : null;
      return collected ? { kind: "collect", collected } : null;
    }
    default:
      return null;
  }
}

/** The cluster's current certificate for the request's key (the one signed on approval). */
async function approvedCertificate(clusterId: string, keyHash: string): Promise<Collected | null> {
  const certs = await db().certificate.findMany({
    where: { clusterId, revokedAt: null },
    orderBy: { createdAt: "desc" },
    select: { pem: true },
    take: 5,
  });
  const cert = certs.find((c) => certificateKeyHash(c.pem) === keyHash);
  return cert ? { clusterId, certificatePem: cert.pem } : null;
}

/** The agent collected its certificate: approved -> completed, and the attempt log says it registered. */
export async function markCollected(r: RequestRow, sourceAddress: string | null, now: Date): Promise<void> {
  await db().$transaction(async (tx) => {
    const moved = await tx.registrationRequest.updateMany({
      where: { id: r.id, state: "approved" },
      data: { state: "completed", lastSeenAt: now },
    });
    await tx.registrationAttempt.create({
      data: {
        result: "ok",
        sourceAddress: sourceAddress === null ? null : storableText(sourceAddress, 64),
        tokenId: r.tokenId,
        clusterName: r.name,
        clusterId: r.clusterId,
        ...(moved.count ? { message: `collected the certificate of approved request ${r.id}` } : {}),
      },
    });
  });
}

export type NewRequest = {
  req: RegisterRequest;
  token: { id: string; name: string };
  keyHash: string;
  /** The labels the cluster will carry (checked against the token's scope and the required labels). */
  labels: Labels;
  sourceAddress: string | null;
  now: Date;
};

/**
 * Records a checked registration as pending, holding one of the token's uses, in one transaction
 * with its attempt-log entry, its audit entry and its webhook (registration.pendingApproval, once:
 * notifiedAt). Another key asking for a name already pending is 409 cluster_conflict: the unique
 * pendingName decides a race on both engines.
 */
export async function recordPendingRequest(n: NewRequest): Promise<RepeatAnswer> {
  const { req, token, now } = n;
  const id = `rr_${randomId(16)}`;
  const sourceAddress = n.sourceAddress === null ? null : storableText(n.sourceAddress, 64);
  const actor: Actor = { type: "agent", id: token.id, label: `token:${token.name}` };
  try {
    await inTransaction(async (tx, afterCommit) => {
      // The request first: a race for its name is decided by the unique pendingName before the
      // use, so the same agent twice at once is a repeat, not a token used up by itself.
      await tx.registrationRequest.create({
        data: {
          id,
          name: req.name,
          state: "pending",
          pendingName: req.name,
          tokenId: token.id,
          tokenName: token.name,
          keyHash: n.keyHash,
          csr: req.csr,
          labels: JSON.stringify(n.labels),
          sourceAddress,
          caFingerprint: req.caFingerprint,
          apiServerUrl: req.apiServerUrl,
          agentVersion: req.agentVersion,
          kubernetesVersion: req.kubernetesVersion ?? null,
          clusterUid: req.clusterUid ?? null,
          firstSeenAt: now,
          lastSeenAt: now,
          expiresAt: new Date(now.getTime() + REGISTRATION_REQUEST_TTL_DAYS * DAY_MS),
          notifiedAt: now,
        },
      });
      if (!(await consumeTokenUse(tx, token.id, now)))
        throw new ApiError("token_exhausted", "The registration token has no uses left; ask an operator for a new one.");
      await tx.registrationAttempt.create({
        data: {
          result: "pending_approval",
          sourceAddress,
          tokenId: token.id,
          clusterName: req.name,
          message: `waiting for an operator's approval (request ${id})`,
        },
      });
      await tx.auditLog.create({
        data: auditRow(
          actor,
          "registrationRequest.create",
          { type: "registrationRequest", id },
          {
            name: req.name,
            tokenId: token.id,
            labels: n.labels,
            sourceAddress,
          },
        ),
      });
      await enqueueWebhookEvent(tx, {
        type: "registration.pendingApproval",
        // The labels the cluster will carry: scoped subscriptions hear only of requests they match.
        labels: n.labels,
        data: {
          requestId: id,
          name: req.name,
          tokenId: token.id,
          tokenName: token.name,
          labels: n.labels,
          sourceAddress,
          link: "/registration-requests",
        },
        occurredAt: now,
      });
      afterCommit(publishPendingCount);
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // The same agent twice at once is a repeat; another key for a pending name is a conflict.
    const other = await db().registrationRequest.findUnique({ where: { pendingName: req.name } });
    if (other && other.keyHash === n.keyHash && other.tokenId === token.id) {
      const answer = await answerRepeat(other, now);
      if (answer) return answer;
    }
    throw new ApiError(
      "cluster_conflict",
      `A registration of the name ${req.name} with another key is already waiting for an operator's approval.`,
    );
  }
  log.info("registration waits for approval", { requestId: id, name: req.name, tokenId: token.id });
  return { kind: "pending", reply: pendingApprovalReply(id) };
}
