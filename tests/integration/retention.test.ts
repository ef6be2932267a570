// The retention jobs (lib/server/retention) on a migrated database of TEST_ENGINE: rows older than
// the Settings' retention are deleted in small batches and younger ones kept, the registration
// attempts stay under their row cap, and pruned audit entries are in the archive file before they
// leave the database, exactly once even when two runs go at the same moment. Bounded: a few
// hundred rows, well under 30 s per engine.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { env } from "@/lib/env";
import { renderOwnMetrics } from "@/lib/server/metrics/registry";
import { AUDIT_ARCHIVE_DIR } from "@/lib/server/retention/audit-archive";
import {
  ATTEMPT_MAX_ROWS,
  pruneAuditLog,
  pruneHeartbeatHistory,
  pruneRegistrationAttempts,
  pruneRegistrationRequests,
  pruneStatusEvents,
} from "@/lib/server/retention/prune-expired";
import { expireRegistrationRequests } from "@/lib/server/registration-requests/expire-requests";
import type { BatchLimits } from "@/lib/server/retention/prune-in-batches";
import { updateSettings } from "@/lib/server/settings/settings";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

const engine = testEngine();
appDatabase();

const DAY = 86_400_000;
const NOW = new Date("2026-06-15T12:00:00.000Z");
const daysAgo = (d: number, extraMs = 0) => new Date(NOW.getTime() - d * DAY - extraMs);
// Small batches, so every prune here takes several statements.
const SMALL: BatchLimits = { batchSize: 7, budgetMs: 60_000, pauseMs: 0 };

async function metric(name: string, table?: string): Promise<number> {
  const line = (await renderOwnMetrics()).find((l) => l.startsWith(name) && (!table || l.includes(`table="${table}"`)));
  return line ? Number(line.split(" ").pop()) : 0;
}

describe(`retention on ${engine}`, () => {
  test("heartbeat history and fleet samples older than the retention are deleted, younger kept", async () => {
    await db().cluster.create({ data: { id: "c-retain", name: "retain" } });
    const days = [0, 1, 6, 7, 8, 20, 40];
    for (const d of days) {
      // 3 minutes a day, the oldest of them exactly at the day boundary plus a minute
      for (let m = 0; m < 3; m++) {
        await db().heartbeatBucket.create({ data: { clusterId: "c-retain", bucketStart: daysAgo(d, m * 60_000), count: 6 } });
      }
      await db().fleetSample.create({ data: { at: daysAgo(d), ready: 1, notReady: 0, pending: 0, draining: 0, total: 1 } });
    }
    const before = await metric("fleet_retention_pruned_rows_total", "HeartbeatBucket");
    // default: 7 days; "7 days ago" exactly is kept (strictly older goes), its older minutes go
    const deleted = await pruneHeartbeatHistory(NOW, SMALL);
    const kept = await db().heartbeatBucket.findMany({ orderBy: { bucketStart: "desc" }, select: { bucketStart: true } });
    assert.deepEqual(
      kept.map((b) => b.bucketStart.toISOString()),
      [0, 1, 6]
        .flatMap((d) => [0, 1, 2].map((m) => daysAgo(d, m * 60_000)))
        .concat([daysAgo(7)])
        .map((d) => d.toISOString()),
    );
    const samples = await db().fleetSample.findMany({ orderBy: { at: "desc" } });
    assert.deepEqual(
      samples.map((s) => s.at.toISOString()),
      [0, 1, 6, 7].map((d) => daysAgo(d).toISOString()),
    );
    assert.equal(deleted, 3 * 3 + 2 + 3, "11 buckets and 3 samples");
    assert.equal((await metric("fleet_retention_pruned_rows_total", "HeartbeatBucket")) - before, 11);

    await updateSettings(SYSTEM_ACTOR, { heartbeatHistoryRetentionDays: 1 });
    await pruneHeartbeatHistory(NOW, SMALL);
    assert.equal(
      await db().heartbeatBucket.count({ where: { bucketStart: { lt: daysAgo(1) } } }),
      0,
      "a lowered retention applies",
    );
    assert.equal(await db().heartbeatBucket.count(), 4);
  });

  test("status events older than the retention are deleted, younger kept", async () => {
    for (const d of [1, 30, 89, 91, 200]) {
      for (let i = 0; i < 10; i++) {
        await db().clusterEvent.create({
          data: {
            clusterId: "c-retain",
            clusterName: "retain",
            kind: "status",
            toValue: "Ready",
            reason: `d${d}`,
            at: daysAgo(d, i),
          },
        });
      }
    }
    assert.equal(await pruneStatusEvents(NOW, SMALL), 20);
    const reasons = await db().clusterEvent.groupBy({ by: ["reason"], _count: { _all: true }, orderBy: { reason: "asc" } });
    assert.deepEqual(
      reasons.map((r) => [r.reason, r._count._all]),
      [
        ["d1", 10],
        ["d30", 10],
        ["d89", 10],
      ],
    );
  });

  test("registration attempts past the retention go, and past the row cap the oldest go", async () => {
    for (const d of [0, 29, 31, 60]) {
      for (let i = 0; i < 5; i++)
        await db().registrationAttempt.create({ data: { result: "ok", at: daysAgo(d, i), message: `d${d}` } });
    }
    assert.equal(await pruneRegistrationAttempts(NOW, SMALL), 10);
    assert.deepEqual(
      (
        await db().registrationAttempt.findMany({ select: { message: true }, distinct: ["message"], orderBy: { message: "asc" } })
      ).map((r) => r.message),
      ["d0", "d29"],
    );
    // Past the cap (100,000 in the job; 4 here) the oldest go whatever their age.
    assert.equal(ATTEMPT_MAX_ROWS, 100_000);
    // (the last recorded are kept: ids, not the backdated times of this seed)
    const ids = (await db().registrationAttempt.findMany({ orderBy: { id: "asc" }, select: { id: true } })).map((r) => r.id);
    assert.equal(await pruneRegistrationAttempts(NOW, SMALL, 4), 6);
    const kept = await db().registrationAttempt.findMany({ orderBy: { id: "asc" }, select: { id: true } });
    assert.deepEqual(
      kept.map((r) => r.id),
      ids.slice(-4),
    );
  });

  test("registration requests: pending past their expiry become expired and give their use back; old finished ones go", async () => {
    await db().registrationToken.create({
      data: {
        id: "t-req",
        name: "req",
        secretHash: "x",
        expiresAt: daysAgo(-1),
        maxClusters: 3,
        usedClusters: 2,
        requireApproval: true,
      },
    });
    const request = (id: string, state: string, expiresAt: Date, decidedAt: Date | null = null) =>
      db().registrationRequest.create({
        data: {
          id,
          name: id,
          state,
          pendingKey: state === "pending" ? `${id}:${id}` : null,
          tokenId: "t-req",
          tokenName: "req",
          keyHash: id,
          csr: "",
          caFingerprint: "sha256:x",
          apiServerUrl: "https://x.example",
          agentVersion: "1.4.0",
          expiresAt,
          decidedAt,
        },
      });
    await request("rq-overdue", "pending", daysAgo(0, 1));
    await request("rq-waiting", "pending", daysAgo(-1));
    await request("rq-denied-old", "denied", daysAgo(40), daysAgo(31));
    await request("rq-denied-new", "denied", daysAgo(10), daysAgo(1));
    await request("rq-expired-old", "expired", daysAgo(31));
    await request("rq-completed-new", "completed", daysAgo(5), daysAgo(5));

    assert.equal(await expireRegistrationRequests(NOW), 1);
    assert.equal(await expireRegistrationRequests(NOW), 0, "once");
    const overdue = await db().registrationRequest.findUniqueOrThrow({ where: { id: "rq-overdue" } });
    assert.equal(overdue.state, "expired");
    assert.equal(overdue.pendingKey, null, "the name and key are free for a new request");
    assert.equal(
      (await db().registrationToken.findUniqueOrThrow({ where: { id: "t-req" } })).usedClusters,
      1,
      "the use is given back",
    );

    // The registration attempts' retention (default 30 days).
    assert.equal(await pruneRegistrationRequests(NOW), 2);
    const left = await db().registrationRequest.findMany({ orderBy: { id: "asc" }, select: { id: true } });
    assert.deepEqual(
      left.map((r) => r.id),
      ["rq-completed-new", "rq-denied-new", "rq-overdue", "rq-waiting"],
    );
  });

  test("audit entries past the retention are archived, then deleted; younger ones stay", async () => {
    const actions: [number, string][] = [];
    for (const d of [10, 364, 366, 400, 800]) {
      for (let i = 0; i < 6; i++) actions.push([d, `test.retain.d${d}.${i}`]);
    }
    for (const [d, action] of actions) {
      await db().auditLog.create({
        data: {
          actorType: "system",
          actorLabel: "system",
          action,
          details: JSON.stringify({ d, note: 'quote " and\nnewline' }),
          at: daysAgo(d, 1),
        },
      });
    }
    const before = await metric("fleet_audit_archived_rows_total");
    // Two runs at the same moment (two instances): each old row is archived and deleted once.
    const [a, b] = await Promise.all([pruneAuditLog(NOW, SMALL), pruneAuditLog(NOW, SMALL)]);
    assert.equal(a + b, 18, `the two runs deleted ${a} + ${b}`);
    assert.equal((await metric("fleet_audit_archived_rows_total")) - before, 18);

    const left = await db().auditLog.findMany({ where: { action: { startsWith: "test.retain." } }, select: { action: true } });
    assert.deepEqual(
      left.map((r) => r.action).sort(),
      actions
        .filter(([d]) => d < 365)
        .map(([, a]) => a)
        .sort(),
    );

    const dir = path.join(env().dataDir, AUDIT_ARCHIVE_DIR);
    const files = readdirSync(dir).sort();
    const expectedFiles = [...new Set([366, 400, 800].map((d) => `${daysAgo(d, 1).toISOString().slice(0, 7)}.jsonl`))].sort();
    assert.deepEqual(files, expectedFiles);
    const lines = files.flatMap((f) =>
      readFileSync(path.join(dir, f), "utf8")
        .trim()
        .split("\n")
        .map((l) => ({
          file: f,
          row: JSON.parse(l) as { id: number; at: string; action: string; details: { d: number; note: string } },
        })),
    );
    assert.equal(lines.length, 18, "each pruned entry once");
    assert.deepEqual(
      lines.map((l) => l.row.action).sort(),
      actions
        .filter(([d]) => d > 365)
        .map(([, a]) => a)
        .sort(),
    );
    for (const { file, row } of lines) {
      assert.equal(file, `${row.at.slice(0, 7)}.jsonl`, "in its month's file");
      assert.equal(row.details.note, 'quote " and\nnewline', "details round-trip");
      assert.equal(row.at, daysAgo(row.details.d, 1).toISOString(), "the time as stored");
    }
  });

  test("a failed archive write deletes nothing", async () => {
    await db().auditLog.create({
      data: { actorType: "system", actorLabel: "system", action: "test.retain.unwritable", at: daysAgo(500) },
    });
    // A data dir that is a file: the archive folder cannot be made.
    const notADir = path.join(env().dataDir, AUDIT_ARCHIVE_DIR, "2020-01.jsonl-not-a-dir");
    writeFileSync(notADir, "");
    await assert.rejects(pruneAuditLog(NOW, SMALL, notADir));
    assert.equal(
      await db().auditLog.count({ where: { action: "test.retain.unwritable" } }),
      1,
      "the entry stays for the next run",
    );
    assert.ok(!existsSync(path.join(notADir, AUDIT_ARCHIVE_DIR)));
  });
});
