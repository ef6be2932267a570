// Database faults (lib/server/db/database-errors.ts) and how the one error table answers them: the
// errors below have the shapes Prisma 6.19 and its pg / better-sqlite3 adapters were seen to throw
// (a probe against a TCP proxy, a pool of one and a locked SQLite file), and each must become a
// 503 with Retry-After, never a 500; errors that are not the database's state must stay what they were.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PrismaClientKnownRequestError } from "@/lib/server/db/generated/postgres/internal/prismaNamespace";
import { classifyDatabaseError, RETRY_AFTER_SECONDS, type DatabaseFault } from "@/lib/server/db/database-errors";
import { ApiError, errorReply, knownError } from "@/lib/server/api/errors";

const clientVersion = "6.19.3";
const known = (code: string, message: string, meta: Record<string, unknown> = {}) =>
  new PrismaClientKnownRequestError(message, { code, clientVersion, meta });
/** What the adapters attach to a raw query's P2010 (meta.driverAdapterError). */
const adapterError = (cause: Record<string, unknown>) => Object.assign(new Error("DriverAdapterError"), { cause });
const socketError = (code: string) =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: "connect" });

const FAULTS: [string, unknown, DatabaseFault][] = [
  // PostgreSQL behind a proxy that drops every connection and refuses new ones: pg's bare Error.
  ["connection lost mid-query", new Error("Connection terminated unexpectedly"), "database_unavailable"],
  ["pg connect timeout", new Error("Connection terminated due to connection timeout"), "database_unavailable"],
  ["nothing listening (model query)", known("P1001", "Can't reach database server at 127.0.0.1:5432"), "database_unavailable"],
  [
    "nothing listening (raw query)",
    known("P2010", "Raw query failed. Code: `N/A`. Message: `Can't reach database server at 127.0.0.1:21500`", {
      driverAdapterError: adapterError({ kind: "DatabaseNotReachable", host: "127.0.0.1", port: 21500 }),
    }),
    "database_unavailable",
  ],
  ["connection closed", known("P1017", "Server has closed the connection."), "database_unavailable"],
  ["socket error", socketError("ECONNREFUSED"), "database_unavailable"],
  ["reset wrapped as a cause", new Error("query failed", { cause: socketError("ECONNRESET") }), "database_unavailable"],
  [
    "PostgreSQL shutting down",
    known("P2010", "Raw query failed. Code: `57P01`.", {
      driverAdapterError: adapterError({ kind: "postgres", code: "57P01", originalCode: "57P01" }),
    }),
    "database_unavailable",
  ],
  // Too busy: a pool run dry, a statement timeout, SQLite's busy timeout, too many connections.
  [
    "transaction start timeout",
    known("P2028", "Transaction API error: Unable to start a transaction in the given time."),
    "overloaded",
  ],
  ["pool wait", known("P2024", "Timed out fetching a new connection from the connection pool."), "overloaded"],
  ["pg-pool wait", new Error("timeout exceeded when trying to connect"), "overloaded"],
  [
    "statement timeout",
    known("P2010", "Raw query failed. Code: `57014`. Message: `canceling statement due to statement timeout`", {
      driverAdapterError: adapterError({ kind: "postgres", code: "57014", originalCode: "57014" }),
    }),
    "overloaded",
  ],
  [
    // better-sqlite3's SQLITE_BUSY reaches Prisma as kind "SocketTimeout" (P1008): busy, not unreachable.
    "SQLite busy",
    known("P1008", "Operations timed out", {
      driverAdapterError: adapterError({
        kind: "SocketTimeout",
        originalCode: "SQLITE_BUSY",
        originalMessage: "database is locked",
      }),
    }),
    "overloaded",
  ],
  ["too many connections", known("P2037", "Too many database connections opened"), "overloaded"],
  ["deadlock", known("P2034", "Transaction failed due to a write conflict or a deadlock"), "overloaded"],
];

test("database faults are told apart: unreachable vs too busy", () => {
  for (const [name, err, fault] of FAULTS) assert.equal(classifyDatabaseError(err), fault, name);
});

test("errors that are not the database's state are not faults", () => {
  const others: unknown[] = [
    new Error("boom"),
    new TypeError("Cannot read properties of undefined"),
    known("P2002", "Unique constraint failed on the fields: (`name`)"),
    known("P2025", "Record to update not found."),
    known("P2010", "Raw query failed. Code: `22P05`. Message: `unsupported Unicode escape sequence`", {
      driverAdapterError: adapterError({ kind: "postgres", code: "22P05", originalCode: "22P05" }),
    }),
    "a string",
    null,
    undefined,
  ];
  for (const err of others) assert.equal(classifyDatabaseError(err), null, String(err));
});

test("a fault answers 503 with its code and Retry-After, without the driver's message", () => {
  const originalWarn = console.warn;
  console.warn = () => {};
  try {
    for (const [name, err, fault] of FAULTS) {
      const reply = errorReply(err);
      assert.equal(reply.status, 503, name);
      assert.equal(reply.body.error, fault, name);
      assert.equal(reply.headers?.["retry-after"], String(RETRY_AFTER_SECONDS[fault]), name);
      assert.doesNotMatch(JSON.stringify(reply.body), /127\.0\.0\.1|terminated|SQLITE|Prisma/i, name);
    }
  } finally {
    console.warn = originalWarn;
  }
  assert.ok(RETRY_AFTER_SECONDS.database_unavailable >= 1 && RETRY_AFTER_SECONDS.overloaded >= 1);
});

test("knownError: ApiErrors and faults as answered, the rest untouched", () => {
  const originalWarn = console.warn;
  console.warn = () => {};
  try {
    const api = new ApiError("not_found", "no");
    assert.equal(knownError(api), api);
    const fault = knownError(new Error("Connection terminated unexpectedly"));
    assert.ok(fault instanceof ApiError);
    assert.equal(fault.code, "database_unavailable");
    const bug = new Error("boom");
    assert.equal(knownError(bug), bug);
  } finally {
    console.warn = originalWarn;
  }
  const originalError = console.error;
  console.error = () => {};
  try {
    assert.equal(errorReply(new Error("boom")).status, 500, "a bug is still a 500");
  } finally {
    console.error = originalError;
  }
});
