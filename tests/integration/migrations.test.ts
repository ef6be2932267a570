// The migration applier (lib/server/db/migrate.ts) against a real database of the engine named by
// TEST_ENGINE: applies everything once, is idempotent, serialises instances starting together,
// refuses a tampered or unknown history, and rolls back a failing migration.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test, type TestContext } from "node:test";
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

  test("0024 moves each cluster's newest capabilities event into Cluster.capabilities and drops those events", async (t) => {
    // The history as it stood before 0024, then 0024 itself.
    const root = process.cwd();
    const { dir, write } = madeUpHistory(t);
    const copy = (name: string) =>
      write(name, readFileSync(path.join(root, "prisma/migrations", engine, name, "migration.sql"), "utf8"));
    const capabilities = committed.find((n) => n.startsWith("0024_"))!;
    for (const name of committed.filter((n) => n < capabilities)) copy(name);
    const db = await databases.create();
    process.chdir(dir);
    await migrate(db.database);

    const now = engine === "sqlite" ? Date.now() : "now()";
    const at = (minutesAgo: number) =>
      engine === "sqlite" ? String(Date.now() - minutesAgo * 60_000) : `now() - interval '${minutesAgo} minutes'`;
    for (const id of ["cl_a", "cl_b", "cl_c"])
      await db.exec(`INSERT INTO "Cluster" ("id", "name", "updatedAt") VALUES ('${id}', 'n-${id}', ${now})`);
    const event = (clusterId: string, kind: string, toValue: string, minutesAgo: number) =>
      db.exec(
        `INSERT INTO "ClusterEvent" ("clusterId", "clusterName", "kind", "toValue", "reason", "at") VALUES ('${clusterId}', 'n', '${kind}', '${toValue}', 'r', ${at(minutesAgo)})`,
      );
    await event("cl_a", "capabilities", "upgrade", 30);
    await event("cl_a", "capabilities", "drainNodePool,upgrade", 10); // the newest wins
    await event("cl_a", "status", "Ready", 5);
    await event("cl_b", "capabilities", "", 10); // reported an empty list: not the same as never
    copy(capabilities);
    await migrate(db.database);

    const rows = await db.query<{ id: string; capabilities: string | null }>(
      `SELECT "id", "capabilities" FROM "Cluster" ORDER BY "id"`,
    );
    assert.deepEqual(rows, [
      { id: "cl_a", capabilities: '["drainNodePool","upgrade"]' },
      { id: "cl_b", capabilities: "[]" },
      { id: "cl_c", capabilities: null },
    ]);
    const kinds = await db.query<{ kind: string }>(`SELECT "kind" FROM "ClusterEvent"`);
    assert.deepEqual(kinds, [{ kind: "status" }], "the capabilities events are gone, the history stays");
  });

  test("a migration that fails leaves no trace of itself and is not recorded", async (t) => {
    const { dir, write } = madeUpHistory(t);
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

/**
 * migrationsDir() is relative to the working directory: a temporary one to hold a made-up history
 * (the test changes into it when it is written), removed after the test.
 */
function madeUpHistory(t: TestContext) {
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
  return { dir, write };
}

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
