// lib/server/db/sql.ts binds values for the driver itself exactly as Prisma's adapters bind them,
// so a row written on the driver reads back as one written through Prisma. Checked against each
// adapter: @prisma/adapter-better-sqlite3 on an in-memory database, @prisma/adapter-pg against a
// pool that records what it is sent. And the builder's rendering in both dialects.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import Database from "better-sqlite3";
import pg, { type Pool } from "pg";
import { boundValues, list, raw, render, sql, valuesList } from "@/lib/server/db/sql";

// The argument types Prisma's client gives a raw query's parameters.
const samples: [unknown, { scalarType: string; arity: "scalar" }][] = [
  [new Date("2026-12-02T20:15:07.123Z"), { scalarType: "datetime", arity: "scalar" }],
  [new Date("2026-12-02T20:15:07.000Z"), { scalarType: "datetime", arity: "scalar" }],
  [new Date("0999-01-02T03:04:05.006Z"), { scalarType: "datetime", arity: "scalar" }],
  [true, { scalarType: "boolean", arity: "scalar" }],
  [false, { scalarType: "boolean", arity: "scalar" }],
  [null, { scalarType: "unknown", arity: "scalar" }],
  [42, { scalarType: "int", arity: "scalar" }],
  [1.5, { scalarType: "float", arity: "scalar" }],
  ["text", { scalarType: "string", arity: "scalar" }],
];

test("SQLite: a value bound by the toolkit reads back as the adapter's", async () => {
  const adapter = await new PrismaBetterSQLite3({ url: ":memory:" }).connect();
  const driver = new Database(":memory:");
  try {
    for (const [value, argType] of samples) {
      const viaAdapter = await adapter.queryRaw({ sql: "SELECT ? AS v", args: [value], argTypes: [argType] } as never);
      const ours = driver.prepare("SELECT ? AS v").get(boundValues(sql`${value}`, "sqlite")) as { v: unknown };
      assert.deepEqual(ours.v, viaAdapter.rows[0]![0], `bound ${String(value)}`);
    }
  } finally {
    driver.close();
    await adapter.dispose();
  }
});

test("PostgreSQL: the toolkit sends the driver what the adapter sends", async () => {
  const sent: unknown[][] = [];
  // A real Pool (the adapter takes anything else for its settings) that never connects.
  const pool = new pg.Pool();
  pool.query = (async (q: { values: unknown[] }) => {
    sent.push(q.values);
    return { fields: [], rows: [], rowCount: 0 };
  }) as unknown as Pool["query"];
  const adapter = await new PrismaPg(pool).connect();
  for (const [value, argType] of samples) {
    await adapter.executeRaw({ sql: "SELECT $1", args: [value], argTypes: [argType] } as never);
    assert.deepEqual(boundValues(sql`${value}`, "postgres"), sent.at(-1), `bound ${String(value)}`);
  }
});

test("one statement renders with each dialect's placeholders, casts only on PostgreSQL", () => {
  const q = sql`SELECT ${raw('"id"')} FROM t WHERE a = ${1} AND b IN (${list(["x", "y"])}) AND c IN (VALUES ${valuesList(
    [
      [new Date(0), 2],
      [new Date(1), 3],
    ],
    ["timestamp(3)", "integer"],
  )})`;
  assert.equal(render(q, "sqlite"), `SELECT "id" FROM t WHERE a = ? AND b IN (?, ?) AND c IN (VALUES (?, ?), (?, ?))`);
  assert.equal(
    render(q, "postgres"),
    `SELECT "id" FROM t WHERE a = $1 AND b IN ($2, $3) AND c IN (VALUES ($4::timestamp(3), $5::integer), ($6::timestamp(3), $7::integer))`,
  );
  assert.equal(q.params.length, 7);
});

test("identifiers come from the Prisma models: a misspelled or renamed column does not compile", async () => {
  const { columns } = await import("@/lib/server/db/sql");
  const c = columns("Cluster", "c");
  const bucket = columns("HeartbeatBucket");
  assert.equal(render(sql`SELECT ${c("id")} FROM ${c.table}`, "postgres"), 'SELECT c."id" FROM "Cluster" c');
  assert.equal(
    render(sql`${bucket("count")} = ${bucket.qualified("count")} + excluded.${bucket("count")}`, "sqlite"),
    '"count" = "HeartbeatBucket"."count" + excluded."count"',
  );
  assert.equal(render(bucket.list("clusterId", "bucketStart"), "sqlite"), '"clusterId", "bucketStart"');
  // @ts-expect-error: ClusterEvent has clusterId, Cluster does not
  c("clusterId");
  // @ts-expect-error: the column is lastHeartbeatAt
  columns("Cluster").qualified("lastHeartbeat");
});
