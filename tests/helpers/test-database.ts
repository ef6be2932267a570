// Fresh, real databases for integration tests: a temp SQLite file, or a new PostgreSQL database
// `fleet_it_<random>` next to TEST_DATABASE_URL. TEST_ENGINE (sqlite | postgres) picks the engine,
// so the same test file runs on both (scripts/test-integration.sh runs the suite once per engine).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { after } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { DEFAULT_POOL_SIZE, type Env } from "@/lib/env";
import { introspect, type SchemaSnapshot } from "./introspect";

export type Engine = Env["database"]["dialect"];

export const DEFAULT_TEST_DATABASE_URL = "postgresql://127.0.0.1:5432/test";

export function testEngine(): Engine {
  const value = process.env.TEST_ENGINE || "sqlite";
  if (value !== "sqlite" && value !== "postgres") {
    throw new Error(`TEST_ENGINE must be "sqlite" or "postgres", not "${value}"`);
  }
  return value;
}

/**
 * The PostgreSQL server tests create their databases on (the database in the URL is only used to
 * connect). libpq falls back to the OS user when a URL names none, node-pg only to $USER, which
 * CI shells often lack: the user is filled in here so both behave alike.
 */
export function adminDatabaseUrl(): string {
  const u = new URL(process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL);
  if (!u.username) u.username = process.env.PGUSER || process.env.USER || userInfo().username;
  return u.toString();
}

export type Row = Record<string, unknown>;

export interface TestDatabase {
  readonly engine: Engine;
  /** What lib/server/db (migrate(), createDb()) takes. */
  readonly database: Env["database"];
  /** The same database as a DATABASE_URL value. */
  readonly url: string;
  /** Runs one or more statements (no parameters). */
  exec(sql: string): Promise<void>;
  /** One statement with `?` (SQLite) or `$1` (PostgreSQL) parameters. */
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Normalised tables, columns, indexes and foreign keys (see introspect.ts). */
  introspect(options?: { exclude?: string[] }): Promise<SchemaSnapshot>;
  /** Closes this handle's connection (the database stays). */
  close(): Promise<void>;
  /** Closes the connection and deletes the database. */
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  return testEngine() === "sqlite" ? createSqlite() : createPostgres();
}

/**
 * For a test file: `const databases = freshDatabases();` then `await databases.create()` as often
 * as needed; every database made this way is dropped when the file's tests are done.
 */
export function freshDatabases(): { create(): Promise<TestDatabase> } {
  const made: TestDatabase[] = [];
  after(async () => {
    for (const d of made.splice(0)) await d.drop().catch((err) => console.error(`could not drop ${d.url}:`, err));
  });
  return {
    async create() {
      const d = await createTestDatabase();
      made.push(d);
      return d;
    },
  };
}

function createSqlite(): TestDatabase {
  const dir = mkdtempSync(path.join(tmpdir(), "fleet-it-"));
  const file = path.join(dir, "fleet.db");
  let conn: Database.Database | null = null;
  const open = () => (conn ??= new Database(file, { timeout: 15_000 }));
  const close = async () => {
    conn?.close();
    conn = null;
  };
  const query = async <T extends Row>(sql: string, params: unknown[] = []) => {
    const stmt = open().prepare(sql);
    if (!stmt.reader) {
      stmt.run(...params);
      return [] as T[];
    }
    return stmt.all(...params) as T[];
  };
  return {
    engine: "sqlite",
    database: { dialect: "sqlite", file },
    url: `file:${file}`,
    async exec(sql) {
      open().exec(sql);
    },
    query,
    introspect: (options) => introspect({ engine: "sqlite", query }, options),
    close,
    async drop() {
      await close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function createPostgres(): Promise<TestDatabase> {
  const name = `fleet_it_${randomBytes(6).toString("hex")}`;
  const url = withDatabase(adminDatabaseUrl(), name);
  await withAdminClient((c) => c.query(`CREATE DATABASE "${name}"`));
  let client: pg.Client | null = null;
  const open = async () => {
    if (!client) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      client = c;
    }
    return client;
  };
  const close = async () => {
    const c = client;
    client = null;
    await c?.end();
  };
  const query = async <T extends Row>(sql: string, params: unknown[] = []) =>
    (await (await open()).query(sql, params)).rows as T[];
  return {
    engine: "postgres",
    database: { dialect: "postgres", url, poolSize: DEFAULT_POOL_SIZE },
    url,
    async exec(sql) {
      await (await open()).query(sql);
    },
    query,
    introspect: (options) => introspect({ engine: "postgres", query }, options),
    close,
    async drop() {
      await close();
      // FORCE ends sessions a failed test may have left open (PostgreSQL 13+).
      await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** `url` with its database name replaced. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withAdminClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 5_000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
