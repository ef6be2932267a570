// The retention pieces that need no database: the batch loop (on a fake clock, so a budget that
// is ignored or a loop that never ends would show), the audit archive's lines and files, and the
// retention settings' defaults and bounds. Bounded: everything here runs in well under a second.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  crossSettingProblem,
  DEFAULT_SETTINGS,
  SETTING_LABELS,
  settingsPatchSchema,
  settingsSchema,
} from "@/lib/domain/settings";
import { appendToArchive, archiveFileName, archiveLine } from "@/lib/server/retention/audit-archive";
import { pruneInBatches, type BatchClock } from "@/lib/server/retention/prune-in-batches";

function fakeClock(msPerBatch: number) {
  let ms = 0;
  const sleeps: number[] = [];
  const clock: BatchClock = {
    now: () => ms,
    sleep: async (pause) => {
      sleeps.push(pause);
      ms += pause;
    },
  };
  return { clock, sleeps, advance: () => (ms += msPerBatch) };
}

test("batches run until one comes back short, pausing between them", async () => {
  const { clock, sleeps, advance } = fakeClock(5);
  let left = 23;
  const limits: number[] = [];
  const result = await pruneInBatches(
    async (limit) => {
      advance();
      limits.push(limit);
      const n = Math.min(limit, left);
      left -= n;
      return n;
    },
    { batchSize: 10, budgetMs: 1_000, pauseMs: 3 },
    clock,
  );
  assert.deepEqual(result, { deleted: 23, batches: 3, caughtUp: true });
  assert.deepEqual(limits, [10, 10, 10], "every statement is bounded by the batch size");
  assert.deepEqual(sleeps, [3, 3], "a pause between full batches, none after the last");
});

test("an exact multiple of the batch size ends with one empty batch", async () => {
  const { clock, advance } = fakeClock(1);
  let left = 20;
  const result = await pruneInBatches(
    async (limit) => {
      advance();
      const n = Math.min(limit, left);
      left -= n;
      return n;
    },
    { batchSize: 10, budgetMs: 1_000, pauseMs: 0 },
    clock,
  );
  assert.deepEqual(result, { deleted: 20, batches: 3, caughtUp: true });
});

test("a run stops when its time budget is spent and says it has not caught up", async () => {
  const { clock, advance } = fakeClock(40);
  const result = await pruneInBatches(
    async (limit) => {
      advance();
      return limit; // an endless backlog
    },
    { batchSize: 100, budgetMs: 100, pauseMs: 10 },
    clock,
  );
  // 40 ms, +10 pause, 90, +10, 140 >= 100: three batches, then the next tick goes on.
  assert.deepEqual(result, { deleted: 300, batches: 3, caughtUp: false });
});

test("a failing batch fails the run (the job runner logs it; the rows stay for the next run)", async () => {
  const { clock } = fakeClock(1);
  await assert.rejects(
    pruneInBatches(
      async () => {
        throw new Error("disk full");
      },
      undefined,
      clock,
    ),
    /disk full/,
  );
});

const entry = (id: number, at: string, details = '{"changes":{"a":1}}') => ({
  id,
  at: new Date(at),
  actorType: "user",
  actorId: "u1",
  actorLabel: "admin@example.com",
  action: "settings.update",
  targetType: "settings",
  targetId: "fleet",
  details,
});

test("archive files are named by the entry's month in UTC", () => {
  assert.equal(archiveFileName(new Date("2026-01-31T23:59:59.999Z")), "2026-01.jsonl");
  assert.equal(archiveFileName(new Date("2026-02-01T00:00:00.000Z")), "2026-02.jsonl");
});

test("an archive line is the row as JSON with its details parsed, and one line whatever the text", () => {
  const line = archiveLine(entry(7, "2026-03-04T05:06:07.000Z", '{"note":"two\\nlines"}'));
  assert.ok(line.endsWith("\n") && line.indexOf("\n") === line.length - 1, "exactly one line");
  assert.deepEqual(JSON.parse(line), {
    id: 7,
    at: "2026-03-04T05:06:07.000Z",
    actorType: "user",
    actorId: "u1",
    actorLabel: "admin@example.com",
    action: "settings.update",
    targetType: "settings",
    targetId: "fleet",
    details: { note: "two\nlines" },
  });
  assert.equal(JSON.parse(archiveLine(entry(8, "2026-03-04T00:00:00Z", "not json"))).details, "not json");
});

test("entries are appended to their month's file in id order, owner-only, after what is there", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "fleet-unit-archive-"));
  try {
    await appendToArchive(dir, [
      entry(3, "2026-02-01T00:00:00Z"),
      entry(1, "2026-01-05T00:00:00Z"),
      entry(2, "2026-01-20T00:00:00Z"),
    ]);
    await appendToArchive(dir, [entry(4, "2026-01-21T00:00:00Z")]);
    await appendToArchive(dir, []);
    const ids = (name: string) =>
      readFileSync(path.join(dir, "audit-archive", name), "utf8")
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { id: number }).id);
    assert.deepEqual(ids("2026-01.jsonl"), [1, 2, 4]);
    assert.deepEqual(ids("2026-02.jsonl"), [3]);
    assert.equal(statSync(path.join(dir, "audit-archive", "2026-01.jsonl")).mode & 0o777, 0o600);
    assert.equal(statSync(path.join(dir, "audit-archive")).mode & 0o777, 0o700);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("retention defaults are valid settings and the bounds refuse what would lose data by mistake", () => {
  assert.deepEqual(settingsSchema.parse(DEFAULT_SETTINGS), DEFAULT_SETTINGS);
  assert.equal(DEFAULT_SETTINGS.heartbeatHistoryRetentionDays, 7);
  assert.equal(DEFAULT_SETTINGS.statusEventRetentionDays, 90);
  assert.equal(DEFAULT_SETTINGS.registrationAttemptRetentionDays, 30);
  assert.equal(DEFAULT_SETTINGS.auditLogRetentionDays, 365);
  assert.ok(settingsPatchSchema.safeParse({ auditLogRetentionDays: 30 }).success);
  for (const bad of [
    { auditLogRetentionDays: 29 },
    { heartbeatHistoryRetentionDays: 0 },
    { heartbeatHistoryRetentionDays: 91 },
    { statusEventRetentionDays: 1.5 },
    { registrationAttemptRetentionDays: -1 },
  ]) {
    assert.equal(settingsPatchSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
});

test("settings are refused in the words of the form: each message names the label shown, under its own field", () => {
  const issues = (patch: unknown) => {
    const r = settingsPatchSchema.safeParse(patch);
    assert.equal(r.success, false, JSON.stringify(patch));
    return r.error!.issues.map((i) => ({ field: String(i.path[0]), message: i.message }));
  };
  assert.deepEqual(issues({ heartbeatIntervalSeconds: 90, notReadyThresholdSeconds: 60 }), [
    {
      field: "heartbeatIntervalSeconds",
      message: "Heartbeat interval (seconds) must be shorter than the NotReady threshold (seconds) (60).",
    },
  ]);
  assert.deepEqual(issues({ auditLogRetentionDays: 29 }), [
    { field: "auditLogRetentionDays", message: "Audit log (days) must be a whole number from 30 to 3,650." },
  ]);
  assert.deepEqual(issues({ requiredLabels: ["env", "env"] }), [
    { field: "requiredLabels", message: "Required labels names “env” more than once." },
  ]);
  for (const [key, label] of Object.entries(SETTING_LABELS)) {
    for (const { field, message } of issues({ [key]: key === "requiredLabels" ? ["bad key!"] : -1 })) {
      assert.equal(field, key);
      assert.ok(message.startsWith(label), `${key}: ${message}`);
      for (const machine of Object.keys(SETTING_LABELS))
        assert.ok(!message.includes(machine), `${key} names ${machine}: ${message}`);
    }
  }
  assert.equal(crossSettingProblem({ heartbeatIntervalSeconds: 15, notReadyThresholdSeconds: 60 }), null);
  assert.equal(
    crossSettingProblem({ heartbeatIntervalSeconds: 60, notReadyThresholdSeconds: 60 })?.field,
    "heartbeatIntervalSeconds",
  );
});
