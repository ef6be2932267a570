import "server-only";
import { db } from "@/lib/server/db/client";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import type { TokenView } from "@/lib/contracts/tokens";
import { tokenView } from "./token-view";

export async function listTokens(): Promise<TokenView[]> {
  const rows = await db().registrationToken.findMany({ orderBy: { createdAt: "desc" }, take: 1000 });
  const now = new Date();
  return rows.map((r) => tokenView(r, now));
}

/** Revoking is idempotent: revoking a revoked token answers with it unchanged. */
export async function revokeToken(actor: Actor, id: string): Promise<TokenView> {
  return db().$transaction(async (tx) => {
    const token = await tx.registrationToken.findUnique({ where: { id } });
    if (!token) throw new ApiError("not_found", "No registration token with this id.");
    if (token.revokedAt) return tokenView(token);
    const revoked = await tx.registrationToken.update({ where: { id }, data: { revokedAt: new Date() } });
    await recordAudit(
      tx,
      actor,
      "token.revoke",
      { type: "registrationToken", id },
      { name: token.name, usedClusters: token.usedClusters },
    );
    return tokenView(revoked);
  });
}
