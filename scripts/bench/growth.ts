// npm run bench:growth — how much the database grows per day with a fleet of BENCH_CLUSTERS
// (default 10,000) heartbeating every BENCH_INTERVAL (default 10) s. Seeds one realistic day of the
// rows that grow into a fresh, migrated database of TEST_ENGINE (sqlite | postgres) for a sample of
// BENCH_SAMPLE clusters (default 200), measures each table with its indexes (SQLite: dbstat pages
// and the file's growth; PostgreSQL: pg_total_relation_size) and extrapolates linearly to the
// fleet: every row is per cluster, so size scales with the fleet. Only the heartbeat buckets
// (99 % of the rows) are sampled; the other tables get the whole fleet's day, which is small and
// would round to a page or two in a sample. Prints MB/day per table, the
// total, and the size each table levels off at under the default retention. Asserts nothing.
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { DEFAULT_SETTINGS } from "../../lib/domain/settings";
import { db } from "../../lib/server/db/client";
import { migrate } from "../../lib/server/db/migrate";
import { pruneHeartbeatHistory } from "../../lib/server/retention/prune-expired";
import { DEFAULT_BATCH_LIMITS } from "../../lib/server/retention/prune-in-batches";
import { insertRows, ts, type Value } from "../../tests/helpers/seed-rows";
import { createTestDatabase, type TestDatabase } from "../../tests/helpers/test-database";

const FLEET = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const INTERVAL_S = Number(process.env.BENCH_INTERVAL ?? 10);
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 200);

// What one cluster adds in a day. Heartbeats are exact (one bucket per minute); the rest are
// assumptions on the busy side of a healthy fleet, printed with the result.
const PER_CLUSTER_DAY = {
  /** HeartbeatBucket: one row per cluster and minute, whatever the interval (count = 60 / interval) */
  buckets: 1_440,
  /** ClusterEvent: a NotReady and back, say, for every cluster every day */
  events: 2,
  /** Certificate: 30-day certificates renewed with a third left = one every 20 days (kept, not pruned) */
  certificates: 1 / 20,
  /** AuditLog: each renewal (certificate.rotate) plus as many operator and agent actions again */
  audit: 2 / 20,
  /** RegistrationAttempt: re-registrations and refusals, 1 in 20 clusters a day */
  attempts: 1 / 20,
};

const DAY_MS = 86_400_000;
const MINUTE = 60_000;
const MB = 1024 * 1024;

/** The tables a day adds to, with how their rows are retained. */
const GROWING = [
  { table: "HeartbeatBucket", retentionDays: DEFAULT_SETTINGS.heartbeatHistoryRetentionDays },
  { table: "ClusterEvent", retentionDays: DEFAULT_SETTINGS.statusEventRetentionDays },
  { table: "RegistrationAttempt", retentionDays: DEFAULT_SETTINGS.registrationAttemptRetentionDays },
  { table: "AuditLog", retentionDays: DEFAULT_SETTINGS.auditLogRetentionDays },
  { table: "Certificate", retentionDays: null },
] as const;

const clusterId = (i: number) => `cl_${String(i).padStart(16, "0")}`;
const clusterName = (i: number) => `prod-eu-west-1-${String(i).padStart(5, "0")}`;
/** `count` rows spread evenly over the day, `make(i, at)` each. */
function spread(count: number, start: number, make: (i: number, at: number) => Value[]): Value[][] {
  return Array.from({ length: count }, (_, i) => make(i, start + Math.floor(((i + 0.5) * DAY_MS) / count)));
}

async function seedDay(d: TestDatabase, start: number): Promise<Record<string, number>> {
  const n = (perCluster: number) => Math.round(perCluster * FLEET);
  const rows: Record<string, number> = {};
  const insert = async (table: string, columns: string[], values: Value[][]) => {
    rows[table] = values.length;
    await insertRows(d, table, columns, values);
  };

  // Minute by minute across the sample, as the heartbeat writer inserts them (the primary key's
  // pages fill as they would, not as a sorted bulk load would fill them).
  const perBucket = Math.round(60 / INTERVAL_S);
  const buckets: Value[][] = [];
  for (let m = 0; m < PER_CLUSTER_DAY.buckets; m++) {
    for (let c = 0; c < SAMPLE; c++) buckets.push([clusterId(c), ts(start + m * MINUTE), perBucket]);
  }
  await insert("HeartbeatBucket", ["clusterId", "bucketStart", "count"], buckets);

  await insert(
    "ClusterEvent",
    ["clusterId", "clusterName", "kind", "fromValue", "toValue", "reason", "at"],
    spread(n(PER_CLUSTER_DAY.events), start, (i, at) => {
      const down = i % 2 === 0;
      return [
        clusterId(i % FLEET),
        clusterName(i % FLEET),
        "status",
        down ? "Ready" : "NotReady",
        down ? "NotReady" : "Ready",
        down ? "no heartbeat for 60 s" : "heartbeat received",
        ts(at),
      ];
    }),
  );

  // A client certificate's PEM: ~1,000 bytes of DER, in base64 lines of 64 (random: incompressible).
  const pem = () => {
    const b64 = randomBytes(1_020).toString("base64");
    return `-----BEGIN CERTIFICATE-----\n${b64.match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;
  };
  const serial = () => randomBytes(16).toString("hex");
  const certificates = spread(n(PER_CLUSTER_DAY.certificates), start, (i, at) => [
    serial(),
    clusterId(i % SAMPLE),
    `sha256:${randomBytes(32).toString("hex")}`,
    pem(),
    ts(at),
    ts(at + 30 * DAY_MS),
    `sha256:${randomBytes(32).toString("hex")}`,
    ts(at),
  ]);
  await insert(
    "Certificate",
    ["serial", "clusterId", "fingerprint", "pem", "notBefore", "notAfter", "issuerFingerprint", "createdAt"],
    certificates,
  );

  await insert(
    "AuditLog",
    ["at", "actorType", "actorId", "actorLabel", "action", "targetType", "targetId", "details"],
    spread(n(PER_CLUSTER_DAY.audit), start, (i, at) => [
      ts(at),
      "agent",
      clusterId(i % FLEET),
      clusterName(i % FLEET),
      "certificate.rotate",
      "cluster",
      clusterId(i % FLEET),
      JSON.stringify({ previousSerial: serial(), serial: serial(), notAfter: new Date(at + 30 * DAY_MS).toISOString() }),
    ]),
  );

  await insert(
    "RegistrationAttempt",
    ["at", "result", "sourceAddress", "tokenId", "clusterName", "clusterId", "message"],
    spread(n(PER_CLUSTER_DAY.attempts), start, (i, at) => [
      ts(at),
      i % 4 === 0 ? "cluster_conflict" : "ok",
      `10.${(i >> 8) & 255}.${i & 255}.17`,
      randomBytes(6).toString("hex"),
      clusterName(i % FLEET),
      clusterId(i % FLEET),
      i % 4 === 0 ? "This name belongs to a registered cluster; prove it with its kept key or a bound token." : null,
    ]),
  );
  return rows;
}

/** Bytes per growing table (data and indexes). */
async function tableBytes(d: TestDatabase): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const { table } of GROWING) {
    if (d.engine === "postgres") {
      const [r] = await d.query<{ bytes: string }>(`SELECT pg_total_relation_size('"${table}"') AS bytes`);
      out[table] = Number(r!.bytes);
    } else {
      // dbstat: every page of the table and of its indexes (autoindexes included).
      const [r] = await d.query<{ bytes: number }>(
        `SELECT COALESCE(SUM(pgsize), 0) AS bytes FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = ?)`,
        [table],
      );
      out[table] = Number(r!.bytes);
    }
  }
  return out;
}

async function totalBytes(d: TestDatabase): Promise<number> {
  if (d.engine === "postgres") {
    const [r] = await d.query<{ bytes: string }>(`SELECT pg_database_size(current_database()) AS bytes`);
    return Number(r!.bytes);
  }
  await d.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return statSync((d.database as { file: string }).file).size;
}

async function main() {
  const d = await createTestDatabase();
  try {
    await migrate(d.database);
    const t0 = performance.now();
    const start = Math.floor((Date.now() - DAY_MS) / DAY_MS) * DAY_MS;
    // The sample's clusters themselves (not growth: a fleet's size at rest).
    await insertRows(
      d,
      "Cluster",
      ["id", "name", "phase", "status", "updatedAt"],
      Array.from({ length: SAMPLE }, (_, i) => [clusterId(i), clusterName(i), "Active", "Ready", ts(start)]),
    );
    if (d.engine === "postgres") await d.exec("VACUUM ANALYZE");
    const emptyTables = await tableBytes(d);
    const before = await totalBytes(d);
    const rows = await seedDay(d, start);
    if (d.engine === "postgres") await d.exec("VACUUM ANALYZE");
    const after = await tableBytes(d);
    // The file (or database) as a whole, with the buckets' share extrapolated like the table's.
    const bucketBytes = after.HeartbeatBucket! - emptyTables.HeartbeatBucket!;
    const scale = FLEET / SAMPLE;
    const total = (await totalBytes(d)) - before - bucketBytes + bucketBytes * scale;
    const seconds = (performance.now() - t0) / 1000;

    const tableScale = (table: string) => (table === "HeartbeatBucket" ? scale : 1);
    console.log(
      `bench:growth  ${d.engine}: one day of a ${FLEET.toLocaleString("en")}-cluster fleet at a ${INTERVAL_S} s interval, ` +
        `heartbeat buckets from a sample of ${SAMPLE} clusters x ${scale.toFixed(0)} (seeded and measured in ${seconds.toFixed(1)} s)`,
    );
    console.log(
      `  per cluster and day: ${PER_CLUSTER_DAY.buckets} heartbeat buckets, ${PER_CLUSTER_DAY.events} status events, ` +
        `${PER_CLUSTER_DAY.certificates} certificates, ${PER_CLUSTER_DAY.audit} audit entries, ${PER_CLUSTER_DAY.attempts} registration attempts`,
    );
    console.log(
      `  ${"table".padEnd(20)} ${"rows/day".padStart(12)} ${"B/row".padStart(7)} ${"MB/day".padStart(9)} ${"retention".padStart(10)} ${"levels off at".padStart(14)}`,
    );
    let sum = 0;
    let level = 0;
    for (const { table, retentionDays } of GROWING) {
      const bytes = (after[table]! - emptyTables[table]!) * tableScale(table);
      const fleetRows = (rows[table] ?? 0) * tableScale(table);
      sum += bytes;
      const kept = retentionDays === null ? null : (bytes * retentionDays) / MB;
      if (kept !== null) level += kept;
      console.log(
        `  ${table.padEnd(20)} ${Math.round(fleetRows).toLocaleString("en").padStart(12)} ${(fleetRows ? bytes / fleetRows : 0).toFixed(0).padStart(7)} ` +
          `${(bytes / MB).toFixed(1).padStart(9)} ${(retentionDays === null ? "kept" : `${retentionDays} d`).padStart(10)} ` +
          `${(kept === null ? "+" + (bytes / MB).toFixed(1) + " MB/day" : `${(kept / 1024).toFixed(2)} GB`).padStart(14)}`,
      );
    }
    console.log(`  ${"total (tables)".padEnd(20)} ${"".padStart(12)} ${"".padStart(7)} ${(sum / MB).toFixed(1).padStart(9)}`);
    console.log(
      `  ${(d.engine === "postgres" ? "database size" : "file size").padEnd(20)} ${"".padStart(12)} ${"".padStart(7)} ${(total / MB).toFixed(1).padStart(9)}`,
    );
    console.log(`  under the default retention the pruned tables level off at ${(level / 1024).toFixed(1)} GB`);

    // The retention job on the seeded day (the app's own client on this database): how fast it
    // deletes, and how long one batch (the longest any lock is held) takes on average.
    process.env.DATABASE_URL = d.url;
    const pruneStart = performance.now();
    const after7 = new Date(start + (DEFAULT_SETTINGS.heartbeatHistoryRetentionDays + 1) * DAY_MS + MINUTE);
    const limits = { ...DEFAULT_BATCH_LIMITS, budgetMs: 10 * 60_000 };
    const pruned = await pruneHeartbeatHistory(after7, limits);
    const pruneMs = performance.now() - pruneStart;
    const batches = Math.ceil(pruned / limits.batchSize);
    console.log(
      `  prune-heartbeat-history: ${pruned.toLocaleString("en")} rows in ${(pruneMs / 1000).toFixed(1)} s ` +
        `(${Math.round(pruned / (pruneMs / 1000)).toLocaleString("en")} rows/s, ${batches} batches of ${limits.batchSize}, ` +
        `${((pruneMs - batches * limits.pauseMs) / batches).toFixed(1)} ms a batch on average); ` +
        `the fleet adds ${FLEET.toLocaleString("en")} bucket rows a minute`,
    );
    await db().$disconnect();
  } finally {
    await d.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
