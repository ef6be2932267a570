import "server-only";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { releaseTokenUse } from "@/lib/server/tokens/release-token-use";
import { publishPendingCount } from "./pending-count";

const BATCH = 500;

/**
 * Moves one pending request past its expiresAt to expired and gives its token use back. Conditional,
 * so a decision or another instance's expiry that came first wins; true when this call expired it.
 */
export async function expireRequest(id: string, now: Date): Promise<boolean> {
  return inTransaction(async (tx, afterCommit) => {
    const moved = await tx.registrationRequest.updateMany({
      where: { id, state: "pending", expiresAt: { lte: now } },
      data: { state: "expired", pendingName: null },
    });
    if (moved.count === 0) return false;
    const r = await tx.registrationRequest.findUnique({ where: { id }, select: { tokenId: true } });
    if (r?.tokenId) await releaseTokenUse(tx, r.tokenId);
    afterCommit(publishPendingCount);
    return true;
  });
}

/** Pending requests past their expiresAt become expired (a batch per run); returns how many. */
export async function expireRegistrationRequests(now = new Date()): Promise<number> {
  const due = await db().registrationRequest.findMany({
    where: { state: "pending", expiresAt: { lte: now } },
    select: { id: true },
    orderBy: { expiresAt: "asc" },
    take: BATCH,
  });
  let expired = 0;
  for (const { id } of due) if (await expireRequest(id, now)) expired++;
  return expired;
}
