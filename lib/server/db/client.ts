import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type BetterSqlite3 from "better-sqlite3";
import { Pool, types as pgTypes } from "pg";
import { env, type Env } from "@/lib/env";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { PrismaClient as PostgresClient } from "./generated/postgres/client";
import { processSingleton } from "@/lib/server/process-singletons";

// Both generated clients come from the same models (prisma/models.prisma), so they expose
// the same API; the SQLite one's type stands for both.
export type Db = SqliteClient;
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

// Secrets never leave the database unless a query asks for them with `omit: { x: false }`.
const omit = {
  user: { passwordHash: true },
  apiKey: { secretHash: true },
  registrationToken: { secretHash: true },
  secret: { value: true },
  webhookSubscription: { secret: true },
  passwordLink: { tokenHash: true },
} as const;

// A burst (50 registrations at once, on a pool of 10) queues for a connection: wait up to 10 s
// for one rather than Prisma's 2 s, after which the request failed with a 500.
const transactionOptions = { maxWait: 10_000, timeout: 15_000 };

export function createDb(database: Env["database"]): Db {
  return open(database).client;
}

// Prisma writes DateTime columns (timestamp(3), without a zone) in UTC; node-postgres would read
// them as the process's local time in the statements sql.ts runs on the pool itself. Prisma's own
// queries bring their own parsers.
const TIMESTAMP_OID = 1114;
const parseUtcTimestamp = (text: string) => new Date(`${text.replace(" ", "T")}Z`);
const utcTimestamps = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP_OID && format !== "binary"
      ? parseUtcTimestamp
      : pgTypes.getTypeParser(oid, format as "text")) as typeof pgTypes.getTypeParser,
};

type Opened = { client: Db; pool: Pool | null; sqlite: { handle: BetterSqlite3.Database | null } };

function open(database: Env["database"]): Opened {
  if (database.dialect === "sqlite") {
    // timeout = SQLite busy timeout: writers wait for each other instead of failing.
    const adapter = new PrismaBetterSQLite3({ url: database.file, timeout: 5000 });
    // The adapter opens its better-sqlite3 connection when Prisma connects; it is kept for the
    // statements that run on the driver itself (runOnDriver in sql.ts).
    const sqlite: Opened["sqlite"] = { handle: null };
    const connect = adapter.connect.bind(adapter);
    adapter.connect = async () => {
      const connected = await connect();
      sqlite.handle = (connected as unknown as { client: BetterSqlite3.Database }).client;
      return connected;
    };
    const client: Db = new SqliteClient({ adapter, omit, transactionOptions });
    oneTransactionAtATime(client, adapter);
    return { client, pool: null, sqlite };
  }
  // connectionTimeoutMillis bounds a query's wait for a pooled connection like maxWait bounds a
  // transaction's: past it the request answers 503 overloaded instead of waiting without end.
  // The pool is made here, not by the adapter, so /api/metrics can read how full it is.
  const pool = new Pool({
    connectionString: database.url,
    max: database.poolSize,
    connectionTimeoutMillis: transactionOptions.maxWait,
    types: utcTimestamps,
  });
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  return { client: new PostgresClient({ adapter, omit, transactionOptions }) as unknown as Db, pool, sqlite: { handle: null } };
}

// One client per process: the custom server and the Next bundle load this module separately,
// and dev reloads would otherwise open a pool per edit.
const opened = () => processSingleton("database", () => open(env().database));

export function db(): Db {
  return opened().client;
}

/** Prisma's own SQLite connection, once Prisma has opened it (null before, and on PostgreSQL). */
export function sqliteHandle(): BetterSqlite3.Database | null {
  const handle = opened().sqlite.handle;
  return handle?.open ? handle : null;
}

/** The process's PostgreSQL pool (its gauges are in /api/metrics); null on SQLite, which has none. */
export function databasePool(): Pool | null {
  return opened().pool;
}

export function dialect(): Env["database"]["dialect"] {
  return env().database.dialect;
}

type SqliteConnection = Awaited<ReturnType<PrismaBetterSQLite3["connect"]>>;

/**
 * Prisma's SQLite adapter runs everything on one connection. It queues transactions behind each
 * other, but not the statements outside them: one sent while another request's interactive
 * transaction was open (between its awaits) ran inside that transaction, read its snapshot (missing
 * rows committed since by other connections) and, if it wrote, was rolled back with it. Here a
 * statement waits for the open transaction to end, and a transaction for the statements queued
 * before it (first come, first served), unless the statement comes from that transaction's own
 * callback through the base client (a cached read such as the settings, made inside a
 * transaction): that one joins it, as it always did, or the two would wait for each other.
 */
function oneTransactionAtATime(client: { $transaction: unknown }, adapter: PrismaBetterSQLite3): void {
  let tail: Promise<void> = Promise.resolve();
  const turn = (): Promise<() => void> => {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const ready = tail.then(() => release);
    tail = tail.then(() => done);
    return ready;
  };
  /** The transaction holding the connection: its number, which its callback's async context carries. */
  let open = 0;
  let opened = 0;
  const callbackOf = new AsyncLocalStorage<number>();

  const inTurn =
    <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (open && callbackOf.getStore() === open) return run(...args);
      const release = await turn();
      try {
        return await run(...args);
      } finally {
        release();
      }
    };

  const connect = adapter.connect.bind(adapter);
  adapter.connect = async () => {
    const connection: SqliteConnection = await connect();
    const startTransaction = connection.startTransaction.bind(connection);
    return Object.assign(connection, {
      queryRaw: inTurn(connection.queryRaw.bind(connection)),
      executeRaw: inTurn(connection.executeRaw.bind(connection)),
      executeScript: inTurn(connection.executeScript.bind(connection)),
      // The turn is held from BEGIN to COMMIT or ROLLBACK (Prisma rolls back a transaction that times out).
      async startTransaction(...args: Parameters<SqliteConnection["startTransaction"]>) {
        const release = await turn();
        try {
          const tx = await startTransaction(...args);
          const mine = (open = ++opened);
          // Both may be called (a rollback after a failed commit): the second must not touch the
          // next transaction, which may hold the connection by then.
          const ending =
            <R>(end: () => Promise<R>) =>
            async (): Promise<R> => {
              try {
                return await end();
              } finally {
                if (open === mine) open = 0;
                release();
              }
            };
          return Object.assign(tx, { commit: ending(tx.commit.bind(tx)), rollback: ending(tx.rollback.bind(tx)) });
        } catch (err) {
          release();
          throw err;
        }
      },
    });
  };

  // An interactive transaction's callback runs once its transaction holds the connection: it
  // carries that transaction's number.
  const $transaction = (client.$transaction as (arg: unknown, options?: unknown) => Promise<unknown>).bind(client);
  Object.assign(client, {
    $transaction: (arg: unknown, options?: unknown) =>
      typeof arg === "function"
        ? $transaction((tx: unknown) => callbackOf.run(open, () => (arg as (tx: unknown) => unknown)(tx)), options)
        : $transaction(arg, options),
  });
}
