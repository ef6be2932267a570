import "server-only";
import { REGISTRATION_REQUEST_TTL_DAYS } from "@/lib/contracts/registration-requests";
import type { RegisterRequest } from "@/lib/domain/agent-protocol";
import type { Labels } from "@/lib/domain/labels";
import { keyFingerprint, pendingApprovalReply, pendingSlot } from "@/lib/domain/registration-approval";
import { storableText } from "@/lib/domain/storable-text";
import { ApiError } from "@/lib/server/api/errors";
import { randomId } from "@/lib/server/auth/secrets";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { recordAttemptIn } from "@/lib/server/registration/registration-attempts";
import { tokenExhausted } from "@/lib/server/tokens/token-refusals";
import { inTransaction } from "@/lib/server/db/transaction";
import { log } from "@/lib/server/log";
import { enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";
import { isUniqueViolation } from "@/lib/server/registration/write-new-cluster";
import { holdUse } from "./held-uses";
import { publishPendingCount } from "./pending-count";
import type { RepeatAnswer } from "./repeat-request";

// The agent's side of a registration that waits for an operator (docs/protocol.md, "Approval"):
// a new request is recorded; its repeats are answered from it (repeat-request.ts).

const DAY_MS = 86_400_000;

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
 * Records a checked registration as pending, holding a use of its token (shared with the token's
 * other pending requests for the name: held-uses.ts), in one transaction with its attempt-log
 * entry, its audit entry and its webhook (registration.pendingApproval, once: notifiedAt). Other
 * keys may wait for the name too, each with its own request; the same key twice at once is one
 * request: the unique pendingKey decides that race on both engines.
 */
export async function recordPendingRequest(n: NewRequest): Promise<RepeatAnswer> {
  const { req, token, now } = n;
  const id = `rr_${randomId(16)}`;
  const sourceAddress = n.sourceAddress === null ? null : storableText(n.sourceAddress, 64);
  const actor: Actor = { type: "agent", id: token.id, label: `token:${token.name}` };
  try {
    await inTransaction(async (tx, afterCommit) => {
      // The request first: a race of one key for the name is decided by the unique pendingKey
      // before the use, so the same agent twice at once is a repeat, not a token used up by itself.
      await tx.registrationRequest.create({
        data: {
          id,
          name: req.name,
          state: "pending",
          pendingKey: pendingSlot(req.name, n.keyHash),
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
      if (!(await holdUse(tx, { id, tokenId: token.id, name: req.name }, now))) throw tokenExhausted();
      await recordAttemptIn(tx, {
        result: "pending_approval",
        sourceAddress: n.sourceAddress,
        tokenId: token.id,
        clusterName: req.name,
        message: `waiting for an operator's approval (request ${id})`,
      });
      await recordAudit(
        tx,
        actor,
        "registrationRequest.create",
        { type: "registrationRequest", id },
        {
          name: req.name,
          tokenId: token.id,
          labels: n.labels,
          sourceAddress,
          keyFingerprint: keyFingerprint(n.keyHash),
        },
      );
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
    // The same agent twice at once: the other ask recorded it; this one is its repeat.
    const first = await db().registrationRequest.findUnique({ where: { pendingKey: pendingSlot(req.name, n.keyHash) } });
    if (first) return { kind: "pending", reply: pendingApprovalReply(first.id) };
    throw new ApiError(
      "cluster_conflict",
      `A registration of the name ${req.name} with this key was decided a moment ago; ask again.`,
    );
  }
  log.info("registration waits for approval", {
    requestId: id,
    name: req.name,
    tokenId: token.id,
    keyFingerprint: keyFingerprint(n.keyHash),
  });
  return { kind: "pending", reply: pendingApprovalReply(id) };
}
