import "server-only";
import { createHash } from "node:crypto";
import type { NodePoolReport } from "@/lib/domain/agent-protocol";
import { classifyDatabaseError } from "@/lib/server/db/database-errors";
import { updateFromValuesStatements, valuesColumnRef, valuesTable, type ValuesColumn } from "@/lib/server/db/bulk-update";
import { columns, list, raw, runOnDriver, sql, Sql, type Column } from "@/lib/server/db/sql";
import { randomId } from "@/lib/server/auth/secrets";
import { log } from "@/lib/server/log";
import { incCounter, observe } from "@/lib/server/metrics/registry";
import { processSingleton } from "@/lib/server/process-singletons";
import { onPrimary, writesThroughPrimary } from "@/lib/server/agent-port/workers/primary-calls";
import { requeueCounts, requeueFacts, trimCounts, trimFacts } from "./heartbeat-buffer";

/**
 * The facts one heartbeat reports, as stored on the cluster row. An agent sends each part once it
 * has read it: a part it has not read yet (null here) keeps the stored one, never becomes zero.
 */
export type HeartbeatFacts = {
  at: Date;
  agentVersion: string;
  /** null: not reported this time, the stored one stays. */
  kubernetesVersion: string | null;
  /** null (each): not read yet, the stored one stays. */
  apiServerHealth: string | null;
  logsReporting: boolean | null;
  metricsReporting: boolean | null;
  /** null: workloads not read yet, the stored counts (all three) stay. */
  podCount: number | null;
  userPodCount: number | null;
  namespaceCount: number | null;
  appliedPolicyRevision: string | null | undefined;
  /** null: not read yet, the stored pools stay. */
  nodePools: NodePoolReport[] | null;
  /** The kube-system UID, when reported: written only when it differs from what this process wrote. */
  clusterUid?: string;
};

// Heartbeats are coalesced: the newest facts per cluster are kept in memory and written in
// one transaction every FLUSH_MS. At thousands of heartbeats a second this turns thousands of
// single-row commits into a few batched ones; the cost is that a crash loses at most FLUSH_MS
// of heartbeats, which the next heartbeat repairs. Status is computed from the stored facts,
// so the sweeper sees a heartbeat at most FLUSH_MS late.
const FLUSH_MS = 250;
const MINUTE = 60_000;
// A cluster heartbeating faster than this with unchanged facts has its time refreshed at most
// this often (status thresholds are 10 s or more), and the per-minute counts are written at
// most this often: under load both would otherwise be rewritten on every flush.
const UNCHANGED_REFRESH_MS = 2_000;
const BUCKET_FLUSH_MS = 5_000;
// Node pools change rarely, but every cluster's are written on its first heartbeat after a start
// of this process (and a fleet's first heartbeats come in a wave): a few Prisma operations per
// cluster, compiled on the event loop. At most this many clusters' pools go into one flush (100
// a second); the rest are written with a later heartbeat.
const POOL_REWRITES_PER_FLUSH = 25;
// While flushes fail (the database is away) what failed is kept (heartbeat-buffer.ts) and tried
// again this often, and the failure is logged at most this often.
const RETRY_MS = 1_000;
const FAILURE_LOG_MS = 30_000;
const DROPPED = "fleet_heartbeat_buffer_dropped_total";
const DROPPED_HELP = "Buffered heartbeat facts and per-minute counts dropped over the cap";
const FLUSH_FAILURES = "fleet_heartbeat_flush_failures_total";
const FLUSH_FAILURES_HELP = "Heartbeat batches that failed to be written (kept in memory and retried)";
// From zero, so the alerts on them (prometheus/) see the first failure and the first drop.
incCounter(FLUSH_FAILURES, FLUSH_FAILURES_HELP, {}, 0);
for (const kind of ["facts", "counts"]) incCounter(DROPPED, DROPPED_HELP, { kind }, 0);
const FLUSH_SECONDS = "fleet_heartbeat_flush_duration_seconds";
const FLUSH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

type State = {
  pending: Map<string, HeartbeatFacts>;
  /** heartbeats per `${clusterId}|${minute start}` since the last flush */
  buckets: Map<string, number>;
  /** hash of the node pools last written per cluster, to write them only when they change */
  poolHashes: Map<string, string>;
  received: number;
  timer: NodeJS.Timeout | null;
  flushing: Promise<void> | null;
  /** per cluster: when its facts were last written, and what they were (time aside) */
  written: Map<string, { at: number; sig: string }>;
  /** per cluster: the clusterUid this process wrote (it never changes for a real cluster) */
  uids: Map<string, string>;
  bucketsWrittenAt: number;
  /** Since when flushes fail (null: the last one succeeded); what failed is back in the queue. */
  failingSince: number | null;
  failureLoggedAt: number;
};

function state(): State {
  return processSingleton<State>("heartbeat-writer", () => ({
    pending: new Map(),
    buckets: new Map(),
    poolHashes: new Map(),
    received: 0,
    timer: null,
    flushing: null,
    written: new Map(),
    uids: new Map(),
    bucketsWrittenAt: 0,
    failingSince: null,
    failureLoggedAt: 0,
  }));
}

export function enqueueHeartbeat(clusterId: string, facts: HeartbeatFacts) {
  const s = state();
  queue(s, clusterId, facts);
  const key = `${clusterId}|${Math.floor(facts.at.getTime() / MINUTE) * MINUTE}`;
  s.buckets.set(key, (s.buckets.get(key) ?? 0) + 1);
  s.received++;
  bound(s);
  schedule(s);
}

function queue(s: State, clusterId: string, facts: HeartbeatFacts) {
  const queued = s.pending.get(clusterId);
  s.pending.set(clusterId, queued ? withKeptParts(facts, queued) : facts);
}

/**
 * The primary's side of a SQLite worker's flush: the batch joins this process's queue (newer
 * facts win, counts add up) and goes out with its next flush. The worker counted the heartbeats.
 */
const handOver = onPrimary("heartbeat-batch", async (facts: [string, HeartbeatFacts][], counts: [string, number][]) => {
  const s = state();
  for (const [clusterId, f] of facts) {
    const queued = s.pending.get(clusterId);
    // A batch may arrive after a newer heartbeat of the same cluster (another worker's).
    if (queued && queued.at > f.at) s.pending.set(clusterId, withKeptParts(queued, f));
    else queue(s, clusterId, f);
  }
  for (const [key, n] of counts) s.buckets.set(key, (s.buckets.get(key) ?? 0) + n);
  bound(s);
  schedule(s);
});

/**
 * Newer facts, with the parts they lack taken from older facts not written yet: coalescing two
 * heartbeats must not lose a part only the older one carried.
 */
function withKeptParts(newer: HeartbeatFacts, older: HeartbeatFacts): HeartbeatFacts {
  const kept = { ...newer };
  kept.kubernetesVersion ??= older.kubernetesVersion;
  kept.apiServerHealth ??= older.apiServerHealth;
  kept.logsReporting ??= older.logsReporting;
  kept.metricsReporting ??= older.metricsReporting;
  kept.nodePools ??= older.nodePools;
  kept.clusterUid ??= older.clusterUid;
  if (kept.appliedPolicyRevision === undefined) kept.appliedPolicyRevision = older.appliedPolicyRevision;
  if (kept.podCount === null) {
    kept.podCount = older.podCount;
    kept.userPodCount = older.userPodCount;
    kept.namespaceCount = older.namespaceCount;
  }
  return kept;
}

/** Keeps the queue within its caps (only reachable while flushes fail, or for a huge fleet). */
function bound(s: State) {
  const facts = trimFacts(s.pending, (id, f) => s.written.get(id)?.sig === signature(f));
  const counts = trimCounts(s.buckets);
  if (facts) incCounter(DROPPED, DROPPED_HELP, { kind: "facts" }, facts);
  if (counts) incCounter(DROPPED, DROPPED_HELP, { kind: "counts" }, counts);
  if (facts || counts) log.warn("heartbeat buffer full: dropped the oldest", { facts, counts });
}

/** What waits in memory to be written, and whether the last flush failed. */
export function heartbeatBuffer(): { facts: number; counts: number; failing: boolean } {
  const s = state();
  return { facts: s.pending.size, counts: s.buckets.size, failing: s.failingSince !== null };
}

/**
 * Whether the facts heartbeats reported have reached the database: true at once unless the last
 * flush failed; then one flush is tried. The status sweeper asks before judging clusters by their
 * stored facts, so an outage of the database is not taken for an outage of the agents.
 */
export async function heartbeatsCaughtUp(): Promise<boolean> {
  const s = state();
  if (s.failingSince === null) return true;
  await flushHeartbeats();
  return s.failingSince === null;
}

/** Arms the flush timer unless armed; the handle is cleared when it fires, so it can re-arm. */
function schedule(s: State) {
  s.timer ??= setTimeout(
    () => {
      s.timer = null;
      void flushHeartbeats();
    },
    s.failingSince === null ? FLUSH_MS : RETRY_MS,
  );
  // The retries of an outage must not hold a process that is otherwise done (the server's
  // listeners keep it alive; shutdown flushes once more itself).
  s.timer.unref();
}

/** Heartbeats received by this process since it started (for the live summary and metrics). */
export function heartbeatsReceived(): number {
  return state().received;
}

/** Drops what is queued for a cluster that is being removed. */
export function forgetClusterHeartbeats(clusterId: string) {
  const s = state();
  s.pending.delete(clusterId);
  s.poolHashes.delete(clusterId);
  s.written.delete(clusterId);
  s.uids.delete(clusterId);
  for (const key of s.buckets.keys()) if (key.startsWith(`${clusterId}|`)) s.buckets.delete(key);
}

function poolsHash(pools: NodePoolReport[]) {
  return createHash("sha1").update(JSON.stringify(pools)).digest("base64");
}

function signature(f: HeartbeatFacts): string {
  const { at: _at, ...facts } = f;
  return JSON.stringify(facts);
}

/**
 * Writes what is due. Safe to call at any time; concurrent calls share one flush. `force`
 * writes everything queued (shutdown), else an unchanged cluster written less than
 * UNCHANGED_REFRESH_MS ago waits, and counts wait for BUCKET_FLUSH_MS.
 */
export async function flushHeartbeats(force = false): Promise<void> {
  const s = state();
  if (s.flushing) {
    await s.flushing;
    if (!force) {
      // The running flush took what was due when it started; what came since waits for the next.
      if (s.pending.size || s.buckets.size) schedule(s);
      return;
    }
  }
  if (s.timer) clearTimeout(s.timer);
  s.timer = null;
  const now = Date.now();
  const due = new Map<string, HeartbeatFacts>();
  for (const [id, f] of s.pending) {
    const last = s.written.get(id);
    if (force || !last || last.sig !== signature(f) || f.at.getTime() - last.at >= UNCHANGED_REFRESH_MS) due.set(id, f);
  }
  for (const id of due.keys()) s.pending.delete(id);
  const bucketsDue = force || now - s.bucketsWrittenAt >= BUCKET_FLUSH_MS;
  const buckets = bucketsDue ? s.buckets : new Map<string, number>();
  if (bucketsDue) {
    s.buckets = new Map();
    s.bucketsWrittenAt = now;
  }
  const reschedule = () => {
    if (s.pending.size || s.buckets.size) schedule(s);
  };
  if (due.size === 0 && buckets.size === 0) {
    reschedule();
    return;
  }
  const started = performance.now();
  // A worker on SQLite hands its batch to the primary, the file's one writer (primary-calls.ts).
  const batch = writesThroughPrimary() ? handOver([...due], [...buckets]) : write(due, buckets, s.poolHashes, s.uids);
  s.flushing = batch
    .then(() => {
      observe(
        FLUSH_SECONDS,
        "Time to write one batch of heartbeats (facts and counts) to the database",
        FLUSH_BUCKETS,
        (performance.now() - started) / 1000,
      );
      for (const [id, f] of due) {
        s.written.set(id, { at: f.at.getTime(), sig: signature(f) });
        if (f.clusterUid) s.uids.set(id, f.clusterUid);
      }
      if (s.failingSince !== null) {
        log.info("heartbeat flush recovered", {
          downSeconds: Math.round((Date.now() - s.failingSince) / 1000),
          clusters: due.size,
        });
        s.failingSince = null;
      }
    })
    .catch((err) => {
      if (!classifyDatabaseError(err)) {
        // Not the database's state but a fault in the batch itself: trying it again would fail again.
        log.error("heartbeat flush failed", { clusters: due.size, error: String(err) });
        return;
      }
      // The database is away or too busy: the batch goes back into the queue (newer facts win)
      // and is tried again every RETRY_MS, counts included, within the buffer's caps.
      for (const [id, newer] of s.pending) {
        const failed = due.get(id);
        if (failed) s.pending.set(id, withKeptParts(newer, failed));
      }
      requeueFacts(s.pending, due);
      requeueCounts(s.buckets, buckets);
      s.bucketsWrittenAt = 0;
      bound(s);
      incCounter(FLUSH_FAILURES, FLUSH_FAILURES_HELP);
      const at = Date.now();
      s.failingSince ??= at;
      if (at - s.failureLoggedAt >= FAILURE_LOG_MS) {
        s.failureLoggedAt = at;
        log.error("heartbeat flush failed; keeping the facts in memory and retrying", {
          buffered: s.pending.size,
          error: String(err).replace(/\s+/g, " ").slice(0, 300),
        });
      }
    })
    .finally(() => {
      s.flushing = null;
      reschedule();
    });
  return s.flushing;
}

async function write(
  pending: Map<string, HeartbeatFacts>,
  buckets: Map<string, number>,
  poolHashes: Map<string, string>,
  uids: ReadonlyMap<string, string>,
) {
  // Rows are always written in id order: another batch writing clusters (the enrollment
  // evaluator pages by id) then waits instead of deadlocking on PostgreSQL.
  const due = [...pending].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // A cluster removed since its heartbeat was queued must not fail the batch: its facts update
  // matches no row, and its counts and pools are inserted only where the cluster exists. Every
  // statement is raw, on the driver: a batch through Prisma (as pools were written until
  // 2026-12-07) is compiled on the event loop, and during a ramp, when every new cluster's pools
  // are due, that held the primary's event loop for seconds at a time.
  const poolsDue: [string, HeartbeatFacts & { nodePools: NodePoolReport[] }, string][] = [];
  for (const [id, f] of due) {
    if (!f.nodePools) continue;
    const hash = poolsHash(f.nodePools);
    // Bounded per flush (see POOL_REWRITES_PER_FLUSH); a cluster past the bound keeps its old
    // hash, so its next heartbeat writes the pools.
    if (poolHashes.get(id) !== hash && poolsDue.length < POOL_REWRITES_PER_FLUSH)
      poolsDue.push([id, { ...f, nodePools: f.nodePools }, hash]);
  }
  const counts: BucketCount[] = [];
  for (const [key, count] of buckets) {
    const [clusterId, minute] = key.split("|") as [string, string];
    counts.push({ clusterId, bucketStart: new Date(Number(minute)), count });
  }
  await runOnDriver([
    ...factUpdates(due, uids).map((s) => s.q),
    ...bucketUpserts(counts),
    ...poolWrites(
      poolsDue.map(([id, f]) => [id, f.nodePools] as const),
      new Date(),
    ),
  ]);
  for (const [id, , hash] of poolsDue) poolHashes.set(id, hash);
}

// The two writes every heartbeat causes are multi-row raw statements (lib/server/db/bulk-update.ts
// says why).
const FACT_ROWS_PER_STATEMENT = 500; // 13 parameters a row
const cluster = columns("Cluster");
const FACT_COLUMNS = [
  ["id", "text"],
  ["lastHeartbeatAt", "timestamp(3)"],
  ["agentVersion", "text"],
  ["kubernetesVersion", "text"],
  ["apiServerHealth", "text"],
  ["logsReporting", "boolean"],
  ["metricsReporting", "boolean"],
  ["podCount", "integer"],
  ["userPodCount", "integer"],
  ["namespaceCount", "integer"],
  // 1 when the heartbeat reported a revision (null included), 0 to keep the stored one
  ["revisionReported", "integer"],
  ["appliedPolicyRevision", "text"],
  // null unless it changed (or this process has not written it yet): the stored one stays
  ["clusterUid", "text"],
] as const satisfies readonly ValuesColumn<Column<"Cluster"> | "revisionReported">[];
/** The facts written as reported (the id addresses the row; the policy revision has its own rule). */
const PLAIN_FACTS = FACT_COLUMNS.map(([c]) => c).filter(
  (c): c is Exclude<typeof c, "id" | "revisionReported" | "appliedPolicyRevision"> =>
    c !== "id" && c !== "revisionReported" && c !== "appliedPolicyRevision",
);

const KEPT_WHEN_NULL: ReadonlySet<string> = new Set([
  "kubernetesVersion",
  "clusterUid",
  "apiServerHealth",
  "logsReporting",
  "metricsReporting",
  "podCount",
] satisfies Column<"Cluster">[]);

/** The facts of many clusters, one UPDATE ... FROM (VALUES ...) per 500 (rows sorted by id). */
function factUpdates(due: [string, HeartbeatFacts][], uids: ReadonlyMap<string, string>) {
  const rows = due.map(([id, f]) => [
    id,
    f.at,
    f.agentVersion,
    f.kubernetesVersion,
    f.apiServerHealth,
    f.logsReporting,
    f.metricsReporting,
    f.podCount,
    f.userPodCount,
    f.namespaceCount,
    f.appliedPolicyRevision === undefined ? 0 : 1,
    f.appliedPolicyRevision ?? null,
    f.clusterUid && uids.get(id) !== f.clusterUid ? f.clusterUid : null,
  ]);
  return updateFromValuesStatements(
    "Cluster",
    FACT_COLUMNS,
    rows,
    (v) =>
      Sql.join(
        PLAIN_FACTS
          // A part the agent has not read (yet) is null: keep the last known. The same for the
          // UID, which is sent only when it changed. The three workload counts travel together:
          // a null pod count keeps all three (userPodCount may be null when reported).
          .map((c) =>
            KEPT_WHEN_NULL.has(c)
              ? sql`${cluster(c)} = COALESCE(${v(c)}, ${cluster.qualified(c)})`
              : c === "userPodCount" || c === "namespaceCount"
                ? sql`${cluster(c)} = CASE WHEN ${v("podCount")} IS NULL THEN ${cluster.qualified(c)} ELSE ${v(c)} END`
                : sql`${cluster(c)} = ${v(c)}`,
          )
          .concat(
            sql`${cluster("appliedPolicyRevision")} = CASE WHEN ${v("revisionReported")} = 1 THEN ${v("appliedPolicyRevision")} ELSE ${cluster.qualified("appliedPolicyRevision")} END`,
          ),
        ", ",
      ),
    FACT_ROWS_PER_STATEMENT,
    // Facts older than the stored ones are not written: a cluster's heartbeats may be answered by
    // different workers or instances (each connection goes to whichever accepts it), whose
    // batches can commit in any order.
    (v) =>
      sql`${cluster.qualified("lastHeartbeatAt")} IS NULL OR ${cluster.qualified("lastHeartbeatAt")} <= ${v("lastHeartbeatAt")}`,
  );
}

type BucketCount = { clusterId: string; bucketStart: Date; count: number };
/** rows per statement: 3 parameters each, well under both engines' bound-parameter limits */
const BUCKET_ROWS_PER_STATEMENT = 1_000;

/**
 * The per-minute counts as multi-row upserts (one statement per 1,000 clusters) instead of one
 * Prisma upsert each: every flush carries a count for every cluster that heartbeated in the last
 * BUCKET_FLUSH_MS, and compiling thousands of Prisma operations into one batch holds the event
 * loop (and every heartbeat waiting on it) for as long. Raw statements skip the query compiler;
 * dates are bound the way Prisma binds them, so rows stay comparable.
 */
const bucket = columns("HeartbeatBucket");
const BUCKET_COLUMNS = [
  ["clusterId", "text"],
  ["bucketStart", "timestamp(3)"],
  ["count", "integer"],
] as const satisfies readonly ValuesColumn<Column<"HeartbeatBucket">>[];
function bucketUpserts(counts: BucketCount[]): Sql[] {
  const v = (name: Column<"HeartbeatBucket">) => valuesColumnRef(BUCKET_COLUMNS, name);
  const names = BUCKET_COLUMNS.map(([c]) => c);
  const statements: Sql[] = [];
  for (let i = 0; i < counts.length; i += BUCKET_ROWS_PER_STATEMENT) {
    const chunk = counts.slice(i, i + BUCKET_ROWS_PER_STATEMENT);
    const rows = chunk.map((c) => [c.clusterId, c.bucketStart, c.count]);
    // Only for clusters that still exist (the WHERE also tells SQLite's parser that ON CONFLICT
    // belongs to the INSERT, not to a join).
    statements.push(
      sql`INSERT INTO ${bucket.table} (${bucket.list(...names)}) SELECT ${Sql.join(
        names.map((c) => v(c)),
        ", ",
      )} FROM ${valuesTable(BUCKET_COLUMNS, rows)} WHERE EXISTS (SELECT 1 FROM ${cluster.table} WHERE ${cluster.qualified("id")} = ${v("clusterId")}) ON CONFLICT (${bucket.list("clusterId", "bucketStart")}) DO UPDATE SET ${bucket("count")} = ${bucket.qualified("count")} + excluded.${bucket("count")}`,
    );
  }
  return statements;
}

const pool = columns("NodePool");
const POOL_COLUMNS = [
  ["id", "text"],
  ["clusterId", "text"],
  ["name", "text"],
  ["nodeCount", "integer"],
  ["readyNodes", "integer"],
  ["kubeletVersion", "text"],
  ["instanceType", "text"],
  ["cpuCores", "double precision"],
  ["memoryGiB", "double precision"],
  ["updatedAt", "timestamp(3)"],
] as const satisfies readonly ValuesColumn<Column<"NodePool">>[];
/** Written from a report; the rest of a pool's row (its lifecycle state) is the console's. */
const REPORTED_POOL_COLUMNS = POOL_COLUMNS.map(([c]) => c).filter((c) => c !== "id" && c !== "clusterId" && c !== "name");

/** rows per upsert: 10 parameters each, under both engines' bound-parameter limits */
const POOL_ROWS_PER_STATEMENT = 1_000;

/**
 * The node pools of the clusters due, as reported: the pools each no longer reports removed, the
 * others upserted by (cluster, name), only while the cluster exists. One statement for all the
 * removals and one per 1,000 pools: during a ramp every new cluster's pools are due, and a pair of
 * statements per cluster was a round trip each inside the flush's transaction.
 */
function poolWrites(due: readonly (readonly [string, NodePoolReport[]])[], now: Date): Sql[] {
  if (!due.length) return [];
  const kept = due.flatMap(([clusterId, pools]) => pools.map((p) => sql`(${clusterId}, ${p.name})`));
  const removed = sql`DELETE FROM ${pool.table} WHERE ${pool("clusterId")} IN (${list(due.map(([id]) => id))})${
    kept.length ? sql` AND (${pool.list("clusterId", "name")}) NOT IN (VALUES ${Sql.join(kept, ", ")})` : raw("")
  }`;
  const v = (name: Column<"NodePool">) => valuesColumnRef(POOL_COLUMNS, name);
  const rows = due.flatMap(([clusterId, pools]) =>
    pools.map((p) => [
      `np_${randomId(20)}`,
      clusterId,
      p.name,
      p.nodeCount,
      p.readyNodes,
      p.kubeletVersion ?? null,
      p.instanceType ?? null,
      p.cpuCores ?? null,
      p.memoryGiB ?? null,
      now,
    ]),
  );
  const names = POOL_COLUMNS.map(([c]) => c);
  const upserts: Sql[] = [];
  for (let i = 0; i < rows.length; i += POOL_ROWS_PER_STATEMENT) {
    upserts.push(
      sql`INSERT INTO ${pool.table} (${pool.list(...names)}) SELECT ${Sql.join(
        names.map((c) => v(c)),
        ", ",
      )} FROM ${valuesTable(POOL_COLUMNS, rows.slice(i, i + POOL_ROWS_PER_STATEMENT))} WHERE EXISTS (SELECT 1 FROM ${cluster.table} WHERE ${cluster.qualified("id")} = ${v("clusterId")}) ON CONFLICT (${pool.list("clusterId", "name")}) DO UPDATE SET ${Sql.join(
        REPORTED_POOL_COLUMNS.map((c) => sql`${pool(c)} = excluded.${pool(c)}`),
        ", ",
      )}`,
    );
  }
  return [removed, ...upserts];
}
