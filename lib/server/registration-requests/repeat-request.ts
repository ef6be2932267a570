import "server-only";
import { REQUEST_TRANSITIONS } from "@/lib/domain/registration-request-states";
import { REGISTRATION_REQUEST_TTL_DAYS } from "@/lib/contracts/registration-requests";
import { answerFromEarlier, pendingApprovalReply, type PendingApprovalReply } from "@/lib/domain/registration-approval";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { recordAttemptIn } from "@/lib/server/registration/registration-attempts";
import { expireRequest } from "./expire-requests";
import { certificateKeyHash } from "./key-hash";
import type { RequestRow } from "./request-view";

// A key asking again for a name it asked for before (docs/protocol.md, "Approval"): the agent's
// repeats while it waits, and a key whose request was decided. A repeat is recognised by name and
// key, whatever the token: the request was checked when it was recorded, and a token replaced
// meanwhile changes nothing. The rule is answerFromEarlier (lib/domain/registration-approval.ts).

/** What a repeat learns once its request was approved: the cluster and its certificate. */
export type Collected = { clusterId: string; certificatePem: string };

export type RepeatAnswer = { kind: "pending"; reply: PendingApprovalReply } | { kind: "collect"; collected: Collected };

/** This key's newest request for this name, with any token, if it asked before. */
export function findEarlier(name: string, keyHash: string): Promise<RequestRow | null> {
  return db().registrationRequest.findFirst({
    where: { name, keyHash },
    orderBy: [{ firstSeenAt: "desc" }, { id: "desc" }],
  });
}

export const deniedError = (r: Pick<RequestRow, "id" | "reason">) =>
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
 * A key's new ask answered from its earlier request: 202 while pending (even with a token expired
 * or replaced since), 403 once denied (for the cooldown, whatever the token), 410 once expired (to
 * the agent that kept asking with its token), and the approved cluster's certificate once
 * approved. Through a revoked token only a denial is told. Null: nothing holds the key back (it may
 * ask anew) or nothing to collect any more (the certificate was replaced or the cluster removed
 * since); the caller goes on as with any other request.
 */
export async function answerEarlier(
  r: RequestRow,
  ask: { tokenId: string; revoked: boolean; cooldownHours: number },
  now: Date,
): Promise<RepeatAnswer | null> {
  const answer = answerFromEarlier(
    { state: r.state, expiresAt: r.expiresAt, decidedAt: r.decidedAt, sameToken: r.tokenId === ask.tokenId },
    now,
    ask.cooldownHours,
  );
  if (ask.revoked && answer !== "denied") return null;
  switch (answer) {
    case "pending":
      // Only the time: an agent repeating every few seconds for days costs one small update each.
      await db().registrationRequest.update({ where: { id: r.id }, data: { lastSeenAt: now } });
      return { kind: "pending", reply: pendingApprovalReply(r.id) };
    case "expire":
      await expireRequest(r.id, now);
      throw expiredError(r);
    case "denied":
      throw deniedError(r);
    case "expired":
      throw expiredError(r);
    case "collect": {
      const collected = r.clusterId ? await approvedCertificate(r.clusterId, r.keyHash) : null;
      return collected ? { kind: "collect", collected } : null;
    }
    case "ask-anew":
      return null;
  }
}

/**
 * A key that asked for the name before, answered from its newest request (answerEarlier), its
 * certificate marked collected when it collects it; null when it has no earlier request or
 * nothing holds it back.
 */
export async function answerKnownKey(
  name: string,
  keyHash: string,
  ask: Parameters<typeof answerEarlier>[1],
  sourceAddress: string | null,
  now: Date,
): Promise<RepeatAnswer | null> {
  const earlier = await findEarlier(name, keyHash);
  if (!earlier) return null;
  const answer = await answerEarlier(earlier, ask, now);
  if (answer?.kind === "collect") await markCollected(earlier, sourceAddress, now);
  return answer;
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
      where: { id: r.id, state: REQUEST_TRANSITIONS.collect.from },
      data: { state: REQUEST_TRANSITIONS.collect.to, lastSeenAt: now },
    });
    await recordAttemptIn(tx, {
      result: "ok",
      sourceAddress,
      tokenId: r.tokenId,
      clusterName: r.name,
      clusterId: r.clusterId,
      ...(moved.count ? { message: `collected the certificate of approved request ${r.id}` } : {}),
    });
  });
}
