import "server-only";
import { DECIDED_STATES } from "@/lib/domain/registration-request-states";
import { env } from "@/lib/env";
import { db, dialect, type Tx } from "@/lib/server/db/client";
import type { Column, ModelName } from "@/lib/server/db/sql";
import { incCounter } from "@/lib/server/metrics/registry";
import { getSettings } from "@/lib/server/settings/settings";
import { appendToArchive, type ArchivedAuditEntry } from "./audit-archive";
import { DEFAULT_BATCH_LIMITS, pruneInBatches, type BatchLimits } from "./prune-in-batches";

// The retention jobs (docs/operations/retention.md): rows older than the Settings' retention are deleted in
// bounded batches, oldest first. Two instances may run them at once: on PostgreSQL each batch
// locks its rows with SKIP LOCKED, so the instances take different rows and never wait on each
// other; SQLite has one writer anyway. The audit log is archived before it is deleted
// (audit-archive.ts).

export const PRUNED_ROWS = "fleet_retention_pruned_rows_total";
export const ARCHIVED_AUDIT_ROWS = "fleet_audit_archived_rows_total";

/** A table that grows with the fleet, the time column retention reads, and its key. */
type Retained<M extends ModelName> = { table: M; time: Column<M>; key: readonly Column<M>[] };
const retained = <M extends ModelName>(table: M, time: Column<M>, key: readonly Column<M>[]): Retained<M> => ({
  table,
  time,
  key,
});

const HEARTBEAT_BUCKETS = retained("HeartbeatBucket", "bucketStart", ["clusterId", "bucketStart"]);
const FLEET_SAMPLES = retained("FleetSample", "at", ["at"]);
const CLUSTER_EVENTS = retained("ClusterEvent", "at", ["id"]);
const ATTEMPTS = retained("RegistrationAttempt", "at", ["id"]);
const AUDIT_LOG = retained("AuditLog", "at", ["id"]);

/** Refused registrations can come in floods: past this many rows the oldest go whatever their age. */
export const ATTEMPT_MAX_ROWS = 100_000;

const DAY_MS = 86_400_000;

export function retentionCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

const q = (name: string) => `"${name}"`;

/**
 * One batch: the oldest rows with `column < bound`, at most `limit` of them. PostgreSQL skips rows
 * another instance's batch holds; SQLite addresses rows by rowid (every Prisma table has one).
 */
function deleteBatchSql<M extends ModelName>(t: Retained<M>, column: Column<M>, returning = false): string {
  const tail = returning ? " RETURNING *" : "";
  if (dialect() === "postgres") {
    const key = t.key.map(q).join(", ");
    return (
      `DELETE FROM ${q(t.table)} WHERE (${key}) IN (SELECT ${key} FROM ${q(t.table)} WHERE ${q(column)} < $1 ` +
      `ORDER BY ${q(column)} LIMIT $2 FOR UPDATE SKIP LOCKED)${tail}`
    );
  }
  return (
    `DELETE FROM ${q(t.table)} WHERE rowid IN (SELECT rowid FROM ${q(t.table)} WHERE ${q(column)} < ? ` +
    `ORDER BY ${q(column)} LIMIT ?)${tail}`
  );
}

function counted(table: string, deleted: number) {
  if (deleted) incCounter(PRUNED_ROWS, "Rows deleted by the retention jobs", { table }, deleted);
  return deleted;
}

async function pruneOlder<M extends ModelName>(
  t: Retained<M>,
  bound: Date | number,
  limits: BatchLimits,
  column: Column<M> = t.time,
): Promise<number> {
  const sql = deleteBatchSql(t, column);
  const { deleted } = await pruneInBatches(
    async (limit) => counted(t.table, await db().$executeRawUnsafe(sql, bound, limit)),
    limits,
  );
  return deleted;
}

/** Heartbeats per minute and the fleet's status counts per minute (the console's charts). */
export async function pruneHeartbeatHistory(now = new Date(), limits = DEFAULT_BATCH_LIMITS): Promise<number> {
  const cutoff = retentionCutoff(now, (await getSettings()).heartbeatHistoryRetentionDays);
  return (await pruneOlder(HEARTBEAT_BUCKETS, cutoff, limits)) + (await pruneOlder(FLEET_SAMPLES, cutoff, limits));
}

export async function pruneStatusEvents(now = new Date(), limits = DEFAULT_BATCH_LIMITS): Promise<number> {
  const cutoff = retentionCutoff(now, (await getSettings()).statusEventRetentionDays);
  return pruneOlder(CLUSTER_EVENTS, cutoff, limits);
}

/** Attempts past their retention, then the oldest beyond ATTEMPT_MAX_ROWS. */
export async function pruneRegistrationAttempts(
  now = new Date(),
  limits = DEFAULT_BATCH_LIMITS,
  maxRows = ATTEMPT_MAX_ROWS,
): Promise<number> {
  const cutoff = retentionCutoff(now, (await getSettings()).registrationAttemptRetentionDays);
  const old = await pruneOlder(ATTEMPTS, cutoff, limits);
  const keepFrom = await db().registrationAttempt.findFirst({ orderBy: { id: "desc" }, skip: maxRows - 1, select: { id: true } });
  return old + (keepFrom ? await pruneOlder(ATTEMPTS, keepFrom.id, limits, "id") : 0);
}

/**
 * Requests no agent is waiting on any more (decided, collected or expired) older than the
 * registration attempts' retention. An approved one an agent never collected may go too: its
 * agent's next try re-registers by its kept key.
 */
export async function pruneRegistrationRequests(now = new Date()): Promise<number> {
  const cutoff = retentionCutoff(now, (await getSettings()).registrationAttemptRetentionDays);
  const { count } = await db().registrationRequest.deleteMany({
    where: {
      state: { in: DECIDED_STATES },
      OR: [{ decidedAt: { lt: cutoff } }, { decidedAt: null, expiresAt: { lt: cutoff } }],
    },
  });
  return count;
}

type AuditRow = Omit<ArchivedAuditEntry, "id" | "at"> & { id: number | bigint; at: Date | string };

/**
 * Audit entries past their retention: each batch is deleted and its rows archived in one
 * transaction, the archive written and fsync'd before the commit. A failed write rolls the batch
 * back (the rows stay); on PostgreSQL the deleted rows are locked, so no other instance archives them.
 */
export async function pruneAuditLog(now = new Date(), limits = DEFAULT_BATCH_LIMITS, dataDir = env().dataDir): Promise<number> {
  const cutoff = retentionCutoff(now, (await getSettings()).auditLogRetentionDays);
  const sql = deleteBatchSql(AUDIT_LOG, AUDIT_LOG.time, true);
  const { deleted } = await pruneInBatches(async (limit) => {
    const rows = await db().$transaction(async (tx: Tx) => {
      const taken = await tx.$queryRawUnsafe<AuditRow[]>(sql, cutoff, limit);
      const entries = taken.map((r) => ({ ...r, id: Number(r.id), at: new Date(r.at) }));
      await appendToArchive(dataDir, entries);
      return entries.length;
    });
    if (rows) incCounter(ARCHIVED_AUDIT_ROWS, "Audit entries appended to the archive before their deletion", {}, rows);
    return counted(AUDIT_LOG.table, rows);
  }, limits);
  return deleted;
}
