import "server-only";
import { REQUEST_TRANSITIONS } from "@/lib/domain/registration-request-states";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { lockToken } from "@/lib/server/tokens/lock-token";
import { releaseUseIfLast } from "./held-uses";
import { publishPendingCount } from "./pending-count";

const BATCH = 500;
const { expire } = REQUEST_TRANSITIONS;

/**
 * Moves one pending request past its expiresAt to expired and gives its token use back (unless
 * another pending request of the token for the name holds it). Conditional, so a decision or
 * another instance's expiry that came first wins; true when this call expired it.
 */
export async function expireRequest(id: string, now: Date): Promise<boolean> {
  const r = await db().registrationRequest.findUnique({ where: { id }, select: { tokenId: true, name: true } });
  if (!r) return false;
  return inTransaction(async (tx, afterCommit) => {
    if (r.tokenId) await lockToken(tx, r.tokenId);
    const moved = await tx.registrationRequest.updateMany({
      where: { id, state: expire.from, expiresAt: { lte: now } },
      data: { state: expire.to, pendingKey: null },
    });
    if (moved.count === 0) return false;
    await releaseUseIfLast(tx, r.tokenId, r.name);
    afterCommit(publishPendingCount);
    return true;
  });
}

/** Pending requests past their expiresAt become expired (a batch per run); returns how many. */
export async function expireRegistrationRequests(now = new Date()): Promise<number> {
  const due = await db().registrationRequest.findMany({
    where: { state: expire.from, expiresAt: { lte: now } },
    select: { id: true },
    orderBy: { expiresAt: "asc" },
    take: BATCH,
  });
  let expired = 0;
  for (const { id } of due) if (await expireRequest(id, now)) expired++;
  return expired;
}
