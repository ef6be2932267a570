import "server-only";
import type { Tx } from "@/lib/server/db/client";
import { asSqlTx, columns, sql, type Sql, type SqlTx } from "@/lib/server/db/sql";

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
  return (await asSqlTx(tx).run(takeTokenUse(tokenId, now))) === 1;
}

/**
 * consumeTokenUse's statement, for a caller that runs it with others (it changes one row when a use
 * was taken, none otherwise). It locks the token's row until commit, and every registration with
 * the token waits for that lock: run it last in the transaction.
 */
export function takeTokenUse(tokenId: string, now: Date): Sql {
  return sql`UPDATE ${token.table} SET ${token("usedClusters")} = ${token("usedClusters")} + 1
    WHERE ${token("id")} = ${tokenId} AND ${validAt(now)}
    AND ${token("usedClusters")} < ${token("maxClusters")}`;
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
