import "server-only";

// Which database failures are the database's state rather than a bug, and what the APIs answer
// for them (docs/protocol.md, "Overload and outages"). What the driver adapters really
// throw, measured on Prisma 6.19 with @prisma/adapter-pg and @prisma/adapter-better-sqlite3:
// - PostgreSQL gone mid-query, or a proxy refusing: a bare Error "Connection terminated
//   unexpectedly" (pg's own, not wrapped by Prisma);
// - nothing listening: P1001, or P2010 for raw queries with meta.driverAdapterError.cause.kind
//   "DatabaseNotReachable";
// - pool dry for a transaction: P2028 "Unable to start a transaction in the given time";
// - statement timeout: SQLSTATE 57014 in the adapter error's cause (originalCode);
// - SQLite busy past its timeout: originalCode SQLITE_BUSY, kind "SocketTimeout" (P1008).
// Unit-tested with hand-made errors shaped like those (tests/unit/server/database-errors.test.ts).

export type DatabaseFault = "database_unavailable" | "overloaded";

/**
 * Retry-After, in seconds, sent with each fault. Fixed rather than jittered: agents add full
 * jitter on their side (docs/protocol.md), and a fixed value is what operators can read in a log.
 * An outage usually lasts longer than an overload burst, so agents come back later for it.
 */
export const RETRY_AFTER_SECONDS: Record<DatabaseFault, number> = { database_unavailable: 5, overloaded: 2 };

// Codes found anywhere in an error's chain (Node's `code`, Prisma's `code`, the adapter's
// `kind` and `originalCode`), in order: the first rule that matches decides.
const RULES: { fault: DatabaseFault; codes: RegExp }[] = [
  // Too busy: waiting for the pool, a lock, a statement timeout, a serialization conflict.
  {
    fault: "overloaded",
    codes:
      /^(P2024|P2028|P2034|P2037|TooManyConnections|TransactionWriteConflict|57014|55P03|53\w{3}|40001|40P01|SQLITE_BUSY\w*|SQLITE_LOCKED\w*)$/,
  },
  // Unreachable: refused, reset, timed out, shut down, or the connection lost.
  {
    fault: "database_unavailable",
    codes:
      /^(P1001|P1002|P1008|P1011|P1017|DatabaseNotReachable|ConnectionClosed|SocketTimeout|TlsConnectionError|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|08\w{3}|57P0[1-3]|SQLITE_CANTOPEN|SQLITE_IOERR\w*)$/,
  },
];

// Errors that carry no code: matched on their message (pg, pg-pool and Prisma's own wording).
const MESSAGES: { fault: DatabaseFault; text: RegExp }[] = [
  {
    fault: "overloaded",
    text: /Unable to start a transaction in the given time|timeout exceeded when trying to connect|Timed out fetching a new connection|database is locked|canceling statement due to statement timeout/i,
  },
  {
    fault: "database_unavailable",
    text: /Connection terminated|Can't reach database server|Client has encountered a connection error|Connection closed|server closed the connection|the database system is (shutting down|starting up)/i,
  },
];

/** The codes and messages of an error and everything it wraps (cause, Prisma's driverAdapterError). */
function facts(err: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length && seen.size < 10) {
    const e = queue.shift();
    if (!e || typeof e !== "object" || seen.has(e)) continue;
    seen.add(e);
    const o = e as Record<string, unknown>;
    for (const key of ["code", "kind", "originalCode"]) if (typeof o[key] === "string") codes.push(o[key]);
    for (const key of ["message", "originalMessage"]) if (typeof o[key] === "string") messages.push(o[key]);
    queue.push(o.cause, (o.meta as Record<string, unknown> | undefined)?.driverAdapterError);
  }
  return { codes, messages };
}

/**
 * "database_unavailable" when the database cannot be reached or the connection was lost,
 * "overloaded" when it is there but too busy to answer in time, null for anything else (a bug,
 * a constraint: those stay the caller's to handle).
 */
export function classifyDatabaseError(err: unknown): DatabaseFault | null {
  const { codes, messages } = facts(err);
  // SQLite's busy timeout reaches Prisma as kind "SocketTimeout": busy, not unreachable.
  if (codes.some((c) => c.startsWith("SQLITE_BUSY") || c.startsWith("SQLITE_LOCKED"))) return "overloaded";
  for (const rule of RULES) if (codes.some((c) => rule.codes.test(c))) return rule.fault;
  for (const rule of MESSAGES) if (messages.some((m) => rule.text.test(m))) return rule.fault;
  return null;
}
