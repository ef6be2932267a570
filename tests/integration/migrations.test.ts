// The migration applier (lib/server/db/migrate.ts) against a real database of the engine named by
// TEST_ENGINE: applies everything once, is idempotent, serialises instances starting together,
// refuses a tampered or unknown history, and rolls back a failing migration.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { promisify } from "node:util";
import type { Env } from "@/lib/env";
import { loadMigrations, migrate, type MigrateResult } from "@/lib/server/db/migrate";
import { MIGRATIONS_TABLE } from "../helpers/introspect";
import { testEngine, freshDatabases } from "../helpers/test-database";

const engine = testEngine();
const databases = freshDatabases();
const committed = loadMigrations(engine).map((m) => m.name);

type Recorded = { name: string; checksum: string };
const recorded = (db: Awaited<ReturnType<typeof databases.create>>) =>
  db.query<Recorded>(`SELECT name, checksum FROM ${MIGRATIONS_TABLE} ORDER BY name`);

describe(`migrate() on ${engine}`, () => {
  test("there are committed migrations for this engine", () => {
    assert.ok(committed.length > 0, `no migrations under prisma/migrations/${engine}`);
  });

  test("a fresh database gets every migration, recorded with its checksum; a second run applies none", async () => {
    const db = await databases.create();
    const first = await migrate(db.database);
    assert.deepEqual(first, { applied: committed, alreadyApplied: 0 });

    const rows = await recorded(db);
    assert.deepEqual(
      rows.map((r) => ({ name: r.name, checksum: r.checksum })),
      loadMigrations(engine).map((m) => ({ name: m.name, checksum: m.checksum })),
    );
    const snapshot = await db.introspect();
    assert.ok(snapshot.tables.includes("User") && snapshot.tables.includes("Cluster"), "the models' tables exist");

    const second = await migrate(db.database);
    assert.deepEqual(second, { applied: [], alreadyApplied: committed.length });
    assert.deepEqual(await recorded(db), rows, "a second run records nothing new");
    assert.deepEqual(await db.introspect(), snapshot, "a second run changes no schema");
  });

  test("two migrate() calls started together: exactly one applies, both succeed", async () => {
    const db = await databases.create();
    // PostgreSQL: each call opens its own connection. SQLite: the driver is synchronous, so
    // in-process calls cannot overlap; the process test below covers SQLite.
    const results = await Promise.all([migrate(db.database), migrate(db.database)]);
    assertExactlyOneApplied(results);
    assert.equal((await recorded(db)).length, committed.length);
  });

  test("two processes migrating the same fresh database at the same moment: exactly one applies, both succeed", async () => {
    const db = await databases.create();
    if (engine === "sqlite") {
      // An empty file already in WAL mode: what is raced here is the migration lock (BEGIN
      // IMMEDIATE). Racing on a brand-new file also races the switch to WAL: see the next test.
      await db.exec("PRAGMA journal_mode = WAL");
      await db.close();
    }
    const results = await migrateInProcesses(db.database, 2);
    for (const r of results) assert.ok(r.ok, `every process succeeds: ${r.ok ? "" : r.error}`);
    assertExactlyOneApplied(results.map((r) => (r.ok ? r.result : { applied: [], alreadyApplied: -1 })));
    assert.equal((await recorded(db)).length, committed.length);
    assert.deepEqual((await migrate(db.database)).applied, []);
  });

  // SQLite only: a brand-new file also races the switch to WAL, which migrate.ts retries on
  // SQLITE_BUSY (SQLite does not apply its busy timeout to a journal-mode change).
  if (engine === "sqlite") {
    test("two processes migrating a brand-new SQLite file at the same moment both succeed", async () => {
      // Three races at once make a timing-dependent failure likely enough to be seen.
      const races = await Promise.all(
        [1, 2, 3].map(async () => {
          const db = await databases.create();
          return migrateInProcesses(db.database, 2);
        }),
      );
      const failures = races.flat().filter((r) => !r.ok);
      assert.deepEqual(
        failures.map((r) => (r.ok ? "" : r.error)),
        [],
        "no process fails",
      );
    });
  }

  test("a changed migration that was already applied is refused (checksum mismatch)", async () => {
    const db = await databases.create();
    await migrate(db.database);
    const name = committed[0]!;
    // What the database remembers no longer matches the committed file: as if the file was edited.
    await db.query(
      engine === "sqlite"
        ? `UPDATE ${MIGRATIONS_TABLE} SET checksum = ? WHERE name = ?`
        : `UPDATE ${MIGRATIONS_TABLE} SET checksum = $1 WHERE name = $2`,
      ["0".repeat(64), name],
    );
    await assert.rejects(migrate(db.database), new RegExp(`${name}.*checksum mismatch`));
  });

  test("a database with a migration this build does not know is refused", async () => {
    const db = await databases.create();
    await migrate(db.database);
    await db.query(
      engine === "sqlite"
        ? `INSERT INTO ${MIGRATIONS_TABLE} (name, checksum, applied_at) VALUES (?, ?, ?)`
        : `INSERT INTO ${MIGRATIONS_TABLE} (name, checksum) VALUES ($1, $2)`,
      engine === "sqlite"
        ? ["9999_from_the_future", "f".repeat(64), new Date().toISOString()]
        : ["9999_from_the_future", "f".repeat(64)],
    );
    await assert.rejects(migrate(db.database), /9999_from_the_future/);
  });

  test("a migration that fails leaves no trace of itself and is not recorded", async (t) => {
    // migrationsDir() is relative to the working directory: point it at a made-up history.
    const cwd = process.cwd();
    const dir = mkdtempSync(path.join(tmpdir(), "fleet-it-migrations-"));
    t.after(() => {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    });
    const write = (name: string, sql: string) => {
      mkdirSync(path.join(dir, "prisma/migrations", engine, name), { recursive: true });
      writeFileSync(path.join(dir, "prisma/migrations", engine, name, "migration.sql"), sql);
    };
    write("0001_ok", `CREATE TABLE "Good" ("id" INTEGER NOT NULL PRIMARY KEY);`);
    write("0002_broken", `CREATE TABLE "Half" ("id" INTEGER NOT NULL PRIMARY KEY);\nINSERT INTO "NoSuchTable" VALUES (1);`);
    const db = await databases.create();
    process.chdir(dir);

    await assert.rejects(migrate(db.database), /NoSuchTable|no such table|does not exist/);

    const tables = (await db.introspect()).tables;
    assert.ok(!tables.includes("Half"), "the failing migration's first statement was rolled back");
    const names = (await recorded(db)).map((r) => r.name);
    assert.ok(!names.includes("0002_broken"), "the failing migration is not recorded");
    // Every migration that is recorded really happened, and the other way round.
    assert.equal(names.includes("0001_ok"), tables.includes("Good"));
  });
});

type ChildOutcome = { ok: true; result: MigrateResult } | { ok: false; error: string };

/** Runs migrate() in `count` separate processes that start it at the same instant. */
async function migrateInProcesses(database: Env["database"], count: number): Promise<ChildOutcome[]> {
  const startAt = Date.now() + 2_500; // enough for every process to load tsx and the code
  const run = () =>
    promisify(execFile)(
      process.execPath,
      [
        "--import",
        "./runtime/register-hooks.mjs",
        "--import",
        "tsx",
        "tests/helpers/migrate-child.ts",
        JSON.stringify(database),
        String(startAt),
      ],
      { cwd: process.cwd(), timeout: 60_000 },
    ).then(
      (o): ChildOutcome => ({ ok: true, result: JSON.parse(o.stdout.trim().split("\n").at(-1)!) as MigrateResult }),
      (err: { stderr?: string; message: string }): ChildOutcome => ({ ok: false, error: (err.stderr || err.message).trim() }),
    );
  return Promise.all(Array.from({ length: count }, run));
}

function assertExactlyOneApplied(results: MigrateResult[]) {
  const appliers = results.filter((r) => r.applied.length > 0);
  assert.equal(appliers.length, 1, `exactly one call applies migrations: ${JSON.stringify(results)}`);
  assert.deepEqual(appliers[0]!.applied, committed);
  const other = results.find((r) => r.applied.length === 0)!;
  assert.deepEqual(other, { applied: [], alreadyApplied: committed.length });
}
