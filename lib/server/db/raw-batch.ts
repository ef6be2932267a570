import "server-only";
import { db, dialect, databasePool, sqliteHandle } from "@/lib/server/db/client";

// The heartbeat writer's statements, run on the driver itself. Prisma's client (6.19, query
// compiler) turns even a raw statement into a plan on the event loop: the 12 parameters of every
// row are serialised for its WebAssembly compiler, interpreted back and mapped by the adapter,
// which prepares the statement again. For the writer's multi-row writes that wrapping was about
// half the cost of a flush (bench:sweep, "batch of 1,000 heartbeats": SQLite 127 -> 63-67 ms,
// PostgreSQL CPU 129 -> 54 ms). Values are bound exactly as Prisma's adapters bind them, so the
// rows read back the same either way.

/** One statement: text with `?` (SQLite) or `$n` (PostgreSQL) placeholders, and its values. */
export type RawStatement = { sql: string; args: readonly unknown[]; returnsRows?: boolean };

/** As a Prisma operation, for a `$transaction([...])` that mixes it with model queries. */
export function asPrismaOperation(s: RawStatement) {
  return s.returnsRows ? db().$queryRawUnsafe(s.sql, ...s.args) : db().$executeRawUnsafe(s.sql, ...s.args);
}

/** Runs `statements` in one transaction on the driver (Prisma's own connection on SQLite, a pooled one on PostgreSQL). */
export async function runRawBatch(statements: readonly RawStatement[]): Promise<void> {
  if (!statements.length) return;
  if (dialect() === "sqlite") return runOnSqlite(statements);
  const pool = databasePool();
  if (!pool) throw new Error("no PostgreSQL pool");
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query("BEGIN");
    for (const s of statements) await client.query(s.sql, s.args.map(bindPostgres));
    await client.query("COMMIT");
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    // A connection that failed mid-batch (the database went away) is closed, not pooled again.
    client.release(failure);
  }
}

async function runOnSqlite(statements: readonly RawStatement[]): Promise<void> {
  const handle = sqliteHandle();
  // better-sqlite3 is synchronous and SQLite here is one connection, shared with Prisma. While a
  // Prisma transaction is open on it (between its awaits) a statement would join that transaction,
  // so then, and before Prisma has connected, the batch goes through Prisma and waits its turn.
  // Otherwise the whole batch runs to its COMMIT before anything else can touch the connection.
  if (!handle || handle.inTransaction) {
    await db().$transaction(statements.map(asPrismaOperation));
    return;
  }
  handle.transaction(() => {
    for (const s of statements) handle.prepare(s.sql).run(s.args.map(bindSqlite));
  })();
}

// @prisma/adapter-better-sqlite3's mapArg with its default timestampFormat (iso8601).
function bindSqlite(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  return value ?? null;
}

// @prisma/adapter-pg's formatDateTime: UTC, no zone, milliseconds only when there are some.
function bindPostgres(value: unknown): unknown {
  if (!(value instanceof Date)) return value ?? null;
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const ms = value.getUTCMilliseconds();
  return (
    `${pad(value.getUTCFullYear(), 4)}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())} ` +
    `${pad(value.getUTCHours())}:${pad(value.getUTCMinutes())}:${pad(value.getUTCSeconds())}` +
    (ms ? `.${pad(ms, 3)}` : "")
  );
}
