import "server-only";
import type { Tx } from "@/lib/server/db/client";
import { asSqlTx, columns, sql, type SqlTx } from "@/lib/server/db/sql";

const token = columns("RegistrationToken");

/**
 * Locks the token's row until the end of the caller's transaction (a no-op update of its use
 * count): on PostgreSQL two transactions counting the same token's held uses at once would each
 * miss the other's, and take or give back a use twice. SQLite has one writer.
 */
export async function lockToken(tx: Tx | SqlTx, tokenId: string): Promise<void> {
  await asSqlTx(tx).run(
    sql`UPDATE ${token.table} SET ${token("usedClusters")} = ${token("usedClusters")} WHERE ${token("id")} = ${tokenId}`,
  );
}
