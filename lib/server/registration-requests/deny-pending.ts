import "server-only";
import { REQUEST_TRANSITIONS } from "@/lib/domain/registration-request-states";
import type { Tx } from "@/lib/server/db/client";
import { auditInsert, auditRow, type Actor } from "@/lib/server/audit/record-audit";
import { asSqlTx, columns, sql, type Sql, type SqlTx } from "@/lib/server/db/sql";
import { lockToken } from "@/lib/server/tokens/lock-token";
import { releaseUseIfLast } from "./held-uses";

const requests = columns("RegistrationRequest");
const { deny } = REQUEST_TRANSITIONS;

export type DeniedRequest = { id: string; name: string; tokenId: string | null };

export type Denial = {
  actor: Actor;
  /** What the agents are told (403 registration_denied) and the audit keeps. */
  reason: string;
  now: Date;
  /** Audit details every denial carries (the approved request, the revoked token). */
  context: Record<string, unknown>;
};

/**
 * Denies, in the caller's transaction, every pending request that `which` selects, each audited
 * (registrationRequest.deny with the reason), and gives back the token uses they held: a use
 * still held by another pending request, or by the approved one (`keepUseOf`: its cluster took
 * it), stays taken. Their agents are told the reason on their next repeat.
 */
export async function denyPendingRequests(
  txIn: Tx | SqlTx,
  which: { name: string; exceptId: string } | { tokenId: string },
  denial: Denial,
  keepUseOf?: { tokenId: string | null; name: string },
): Promise<DeniedRequest[]> {
  const tx = asSqlTx(txIn);
  const where: Sql =
    "tokenId" in which
      ? sql`${requests("tokenId")} = ${which.tokenId}`
      : sql`${requests("name")} = ${which.name} AND ${requests("id")} <> ${which.exceptId}`;
  const denied = await tx.rows<DeniedRequest>(
    sql`UPDATE ${requests.table}
        SET ${requests("state")} = ${deny.to}, ${requests("pendingKey")} = NULL, ${requests("reason")} = ${denial.reason},
            ${requests("decidedAt")} = ${denial.now}, ${requests("decidedBy")} = ${denial.actor.label}
        WHERE ${requests("state")} = ${deny.from} AND ${where}
        RETURNING ${requests.list("id", "name", "tokenId")}`,
  );
  if (!denied.length) return [];
  const released = new Set<string>();
  const groups = new Map<string, { tokenId: string; name: string }>();
  for (const r of denied) if (r.tokenId) groups.set(`${r.tokenId} ${r.name}`, { tokenId: r.tokenId, name: r.name });
  for (const [group, g] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    if (keepUseOf && keepUseOf.tokenId === g.tokenId && keepUseOf.name === g.name) continue;
    await lockToken(tx, g.tokenId);
    if (await releaseUseIfLast(tx, g.tokenId, g.name)) released.add(group);
  }
  await tx.run(
    auditInsert(
      denied.map((r) =>
        auditRow(
          denial.actor,
          "registrationRequest.deny",
          { type: "registrationRequest", id: r.id },
          {
            name: r.name,
            reason: denial.reason,
            tokenId: r.tokenId,
            tokenUseReleased: released.has(`${r.tokenId} ${r.name}`),
            ...denial.context,
          },
        ),
      ),
      denial.now,
    ),
  );
  return denied;
}
