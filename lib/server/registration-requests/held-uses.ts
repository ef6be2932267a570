import "server-only";
import { db, type Tx } from "@/lib/server/db/client";
import { asSqlTx, columns, sql, type SqlTx } from "@/lib/server/db/sql";
import { consumeTokenUse } from "@/lib/server/tokens/consume-token-use";
import { lockToken } from "@/lib/server/tokens/lock-token";
import { releaseTokenUse } from "@/lib/server/tokens/release-token-use";

// The token uses pending requests hold. A token registers one cluster per use, and several keys may
// wait for one name: they are candidates for one cluster, so the pending requests of one token for
// one name hold one use between them. It is taken when the first of them is recorded and given back
// when the last of them is denied or expires; when one is approved it becomes the cluster's. So a
// key asking with a leaked single-use token cannot use it up before the real agent asks.
//
// Each change takes the token's row lock first (lib/server/tokens/lock-token.ts).

const requests = columns("RegistrationRequest");

/**
 * Locks, in id order, the tokens of every request pending for the name: an approval takes them
 * before it changes any request, in the same order as a denial, an expiry or a revocation (token
 * first, then its requests), so none of them waits on the other in a cycle.
 */
export async function lockCandidateTokens(tx: SqlTx, name: string): Promise<void> {
  const rows = await tx.rows<{ tokenId: string }>(
    sql`SELECT DISTINCT ${requests("tokenId")} FROM ${requests.table}
        WHERE ${requests("name")} = ${name} AND ${requests("state")} = 'pending' AND ${requests("tokenId")} IS NOT NULL`,
  );
  for (const id of rows.map((r) => r.tokenId).sort()) await lockToken(tx, id);
}

async function otherPending(tx: SqlTx, tokenId: string, name: string, exceptId: string | null): Promise<number> {
  const [row] = await tx.rows<{ n: unknown }>(
    sql`SELECT COUNT(*) AS n FROM ${requests.table}
        WHERE ${requests("tokenId")} = ${tokenId} AND ${requests("name")} = ${name} AND ${requests("state")} = 'pending'
        AND ${requests("id")} <> ${exceptId ?? ""}`,
  );
  return Number(row?.n ?? 0);
}

/**
 * A request just recorded as pending (in the caller's transaction): takes a use of its token unless
 * another pending request of the token holds one for the name. False: the token has no use left
 * (or was revoked or expired a moment ago).
 */
export async function holdUse(txIn: Tx | SqlTx, r: { id: string; tokenId: string; name: string }, now: Date): Promise<boolean> {
  const tx = asSqlTx(txIn);
  await lockToken(tx, r.tokenId);
  if ((await otherPending(tx, r.tokenId, r.name, r.id)) > 0) return true;
  return consumeTokenUse(tx, r.tokenId, now);
}

/**
 * A request of this token and name has left pending without a cluster (denied, expired), in the
 * caller's transaction, which locked the token first: gives the use back when no other pending
 * request of the token still holds it for the name. True when it was given back.
 */
export async function releaseUseIfLast(txIn: Tx | SqlTx, tokenId: string | null, name: string): Promise<boolean> {
  if (!tokenId) return false;
  const tx = asSqlTx(txIn);
  if ((await otherPending(tx, tokenId, name, null)) > 0) return false;
  await releaseTokenUse(tx, tokenId);
  return true;
}

/** Does a pending request of this token hold a use for this name (so another key's request shares it)? */
export async function holdsUseFor(tokenId: string, name: string): Promise<boolean> {
  return (await db().registrationRequest.count({ where: { tokenId, name, state: "pending" } })) > 0;
}
