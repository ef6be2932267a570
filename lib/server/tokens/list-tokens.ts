import "server-only";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { TOKEN_REVOKED_REASON } from "@/lib/domain/registration-approval";
import { denyPendingRequests } from "@/lib/server/registration-requests/deny-pending";
import { publishPendingCount } from "@/lib/server/registration-requests/pending-count";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import type { TokenView } from "@/lib/contracts/tokens";
import { tokenView } from "./token-view";

export async function listTokens(): Promise<TokenView[]> {
  const rows = await db().registrationToken.findMany({ orderBy: { createdAt: "desc" }, take: 1000 });
  const now = new Date();
  return rows.map((r) => tokenView(r, now));
}

/**
 * Revoking is idempotent: revoking a revoked token answers with it unchanged. The registration
 * requests still waiting on the token are denied with it ("token revoked"), in the same
 * transaction: their agents are told so on their next repeat.
 */
export async function revokeToken(actor: Actor, id: string): Promise<TokenView> {
  return inTransaction(async (tx, afterCommit) => {
    const token = await tx.registrationToken.findUnique({ where: { id } });
    if (!token) throw new ApiError("not_found", "No registration token with this id.");
    if (token.revokedAt) return tokenView(token);
    const now = new Date();
    const revoked = await tx.registrationToken.update({ where: { id }, data: { revokedAt: now } });
    const denied = await denyPendingRequests(
      tx,
      { tokenId: id },
      { actor, reason: TOKEN_REVOKED_REASON, now, context: { tokenRevoked: true } },
    );
    await recordAudit(
      tx,
      actor,
      "token.revoke",
      { type: "registrationToken", id },
      {
        name: token.name,
        usedClusters: token.usedClusters,
        ...(denied.length ? { deniedRequests: denied.map((r) => r.id) } : {}),
      },
    );
    if (denied.length) afterCommit(publishPendingCount);
    // Read again: the denied requests gave their uses back.
    return tokenView(denied.length ? await tx.registrationToken.findUniqueOrThrow({ where: { id } }) : revoked);
  });
}
