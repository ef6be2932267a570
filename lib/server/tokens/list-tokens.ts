import "server-only";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { TOKEN_REVOKED_REASON } from "@/lib/domain/registration-approval";
import { denyPendingRequests } from "@/lib/server/registration-requests/deny-pending";
import { publishPendingCount } from "@/lib/server/registration-requests/pending-count";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import type { TokenView } from "@/lib/contracts/tokens";
import { tokenView, type TokenRow } from "./token-view";

/** The names of the teams these tokens belong to. */
async function teamNames(rows: readonly { teamId: string | null }[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.flatMap((r) => (r.teamId ? [r.teamId] : [])))];
  if (!ids.length) return new Map();
  const teams = await db().team.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  return new Map(teams.map((t) => [t.id, t.name]));
}

/** A token row as the API shows it, its team named. */
async function viewOf(row: Omit<TokenRow, "teamName"> & { teamId: string | null }): Promise<TokenView> {
  const names = await teamNames([row]);
  return tokenView({ ...row, teamName: row.teamId ? (names.get(row.teamId) ?? null) : null });
}

/** The newest tokens: all of them, or (`teamIds`, for someone whose roles come from teams) their teams' only. */
export async function listTokens(teamIds: readonly string[] | null = null): Promise<TokenView[]> {
  const rows = await db().registrationToken.findMany({
    where: teamIds ? { teamId: { in: [...teamIds] } } : {},
    orderBy: { createdAt: "desc" },
    take: 1000,
  });
  const names = await teamNames(rows);
  const now = new Date();
  return rows.map((r) => tokenView({ ...r, teamName: r.teamId ? (names.get(r.teamId) ?? null) : null }, now));
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
    if (token.revokedAt) return viewOf(token);
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
    return viewOf(denied.length ? await tx.registrationToken.findUniqueOrThrow({ where: { id } }) : revoked);
  });
}
