import "server-only";
import type { Tx } from "@/lib/server/db/client";
import { asSqlTx, columns, sql, type SqlTx } from "@/lib/server/db/sql";

const token = columns("RegistrationToken");

/** Not revoked and not expired at `now`: the rule both statements below apply. */
const validAt = (now: Date) => sql`${token("revokedAt")} IS NULL AND ${token("expiresAt")} > ${now}`;

/**
 * Takes one use of a registration token, in the caller's transaction: one conditional statement,
 * so two registrations racing for the last use (or a revocation, or the expiry) cannot both get
 * it. False, having written nothing, when the token is revoked, expired or used up by now. Every
 * registration that spends a use goes through here: a new cluster, a claim, a re-registration.
 */
export async function consumeTokenUse(tx: Tx | SqlTx, tokenId: string, now: Date): Promise<boolean> {
  const used = await asSqlTx(tx).run(
    sql`UPDATE ${token.table} SET ${token("usedClusters")} = ${token("usedClusters")} + 1
        WHERE ${token("id")} = ${tokenId} AND ${validAt(now)}
        AND ${token("usedClusters")} < ${token("maxClusters")}`,
  );
  return used === 1;
}

/**
 * Whether the token is still valid in the caller's transaction, for a registration that spends
 * nothing (a kept-key re-registration): a token revoked meanwhile refuses it all the same.
 */
export async function tokenStillValid(tx: Tx | SqlTx, tokenId: string, now: Date): Promise<boolean> {
  const rows = await asSqlTx(tx).rows<{ id: string }>(
    sql`SELECT ${token("id")} FROM ${token.table} WHERE ${token("id")} = ${tokenId} AND ${validAt(now)}`,
  );
  return rows.length === 1;
}
