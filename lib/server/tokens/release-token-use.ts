import "server-only";
import type { Tx } from "@/lib/server/db/client";
import { asSqlTx, columns, sql, type SqlTx } from "@/lib/server/db/sql";

const token = columns("RegistrationToken");

/**
 * Gives back a use a registration request held (denied or expired before it registered a
 * cluster), in the caller's transaction. Never below zero.
 */
export async function releaseTokenUse(tx: Tx | SqlTx, tokenId: string): Promise<void> {
  await asSqlTx(tx).run(
    sql`UPDATE ${token.table} SET ${token("usedClusters")} = ${token("usedClusters")} - 1
        WHERE ${token("id")} = ${tokenId} AND ${token("usedClusters")} > 0`,
  );
}
