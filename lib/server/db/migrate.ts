import "server-only";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { Env } from "@/lib/env";

// Prisma's own `migrate deploy` cannot run on PostgreSQL through the JS engine (STACK.md),
// so the app applies its committed SQL itself: in order, each in a transaction, recorded in
// _fleet_migrations, with concurrent starters serialised by a lock.

export type Migration = { name: string; sql: string; checksum: string };
export type MigrateResult = { applied: string[]; alreadyApplied: number };

const TABLE = "_fleet_migrations";
// Arbitrary constant: every instance of the app takes the same PostgreSQL advisory lock.
const PG_LOCK_KEY = 727_274_001;

export function migrationsDir(dialect: Env["database"]["dialect"]): string {
  return path.join(process.cwd(), "prisma", "migrations", dialect);
}

export function loadMigrations(dialect: Env["database"]["dialect"]): Migration[] {
  const dir = migrationsDir(dialect);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

function checkHistory(applied: Map<string, string>, migrations: Migration[]) {
  for (const m of migrations) {
    const sum = applied.get(m.name);
    if (sum && sum !== m.checksum) {
      throw new Error(`Migration ${m.name} was changed after it was applied (checksum mismatch)`);
    }
  }
  const known = new Set(migrations.map((m) => m.name));
  const unknown = [...applied.keys()].filter((n) => !known.has(n));
  if (unknown.length) {
    throw new Error(`The database has migrations this build does not know: ${unknown.join(", ")}`);
  }
}

export async function migrate(database: Env["database"]): Promise<MigrateResult> {
  const migrations = loadMigrations(database.dialect);
  return database.dialect === "sqlite" ? migrateSqlite(database.file, migrations) : migratePostgres(database.url, migrations);
}

/** Switching to WAL does not wait on the busy timeout: two first starts racing retry here. */
function setWal(conn: Database.Database) {
  for (let attempt = 0; ; attempt++) {
    try {
      conn.pragma("journal_mode = WAL");
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== "SQLITE_BUSY" || attempt >= 100) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
}

function migrateSqlite(file: string, migrations: Migration[]): MigrateResult {
  mkdirSync(path.dirname(file), { recursive: true });
  const conn = new Database(file, { timeout: 15_000 });
  try {
    setWal(conn);
    conn.pragma("foreign_keys = ON");
    conn.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    // BEGIN IMMEDIATE takes the write lock up front, so a second process starting at the same
    // time waits here and then sees the migrations as applied.
    const run = conn.transaction(() => {
      const rows = conn.prepare(`SELECT name, checksum FROM ${TABLE}`).all() as { name: string; checksum: string }[];
      const applied = new Map(rows.map((r) => [r.name, r.checksum]));
      checkHistory(applied, migrations);
      const done: string[] = [];
      for (const m of migrations) {
        if (applied.has(m.name)) continue;
        conn.exec(m.sql);
        conn
          .prepare(`INSERT INTO ${TABLE} (name, checksum, applied_at) VALUES (?, ?, ?)`)
          .run(m.name, m.checksum, new Date().toISOString());
        done.push(m.name);
      }
      return { applied: done, alreadyApplied: applied.size };
    });
    return run.immediate();
  } finally {
    conn.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PG_LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM ${TABLE}`);
    const applied = new Map(rows.map((r) => [r.name, r.checksum]));
    checkHistory(applied, migrations);
    const done: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.name)) continue;
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(`INSERT INTO ${TABLE} (name, checksum) VALUES ($1, $2)`, [m.name, m.checksum]);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`);
      }
      done.push(m.name);
    }
    return { applied: done, alreadyApplied: applied.size };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PG_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

/** Names of migrations the database lacks; used by /api/readyz. */
export async function pendingMigrations(
  query: (sql: string) => Promise<{ name: string }[]>,
  dialect: Env["database"]["dialect"],
): Promise<string[]> {
  const rows = await query(`SELECT name FROM ${TABLE}`);
  const have = new Set(rows.map((r) => r.name));
  return loadMigrations(dialect)
    .map((m) => m.name)
    .filter((n) => !have.has(n));
}
