// The outage buffer's rules (lib/server/heartbeats/heartbeat-buffer.ts) and the snapshots that
// keep answering heartbeats while the database is away (lib/server/cache/snapshot.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { BUFFER_LIMITS, requeueCounts, requeueFacts, trimCounts, trimFacts } from "@/lib/server/heartbeats/heartbeat-buffer";
import { Snapshot } from "@/lib/server/cache/snapshot";

type Facts = { at: Date; version: string };
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

test("a failed batch goes back into the queue, but never over newer facts", () => {
  const pending = new Map<string, Facts>([["b", { at: at(30), version: "new" }]]);
  const failed = new Map<string, Facts>([
    ["a", { at: at(10), version: "old" }],
    ["b", { at: at(10), version: "old" }],
  ]);
  requeueFacts(pending, failed);
  assert.deepEqual(pending.get("a"), { at: at(10), version: "old" });
  assert.deepEqual(pending.get("b"), { at: at(30), version: "new" }, "the heartbeat that came during the flush wins");
});

test("per-minute counts of a failed batch are added to those counted since", () => {
  const buckets = new Map([["a|60000", 2]]);
  requeueCounts(
    buckets,
    new Map([
      ["a|60000", 3],
      ["b|60000", 1],
    ]),
  );
  assert.deepEqual(Object.fromEntries(buckets), { "a|60000": 5, "b|60000": 1 });
});

test("over the cap, unchanged facts go first (oldest first), then the oldest changed ones", () => {
  const pending = new Map<string, Facts>();
  // c0..c9: c0-c4 unchanged since their last write, c5-c9 changed; older ids are older facts.
  for (let i = 0; i < 10; i++) pending.set(`c${i}`, { at: at(i), version: i < 5 ? "same" : "changed" });
  const unchanged = (_id: string, f: Facts) => f.version === "same";
  assert.equal(trimFacts(pending, unchanged, 10), 0, "at the cap nothing goes");
  pending.set("c10", { at: at(10), version: "changed" });
  // Over a cap of 10 the buffer is cut to 90 % of it: 11 -> 9.
  assert.equal(trimFacts(pending, unchanged, 10), 2);
  assert.deepEqual([...pending.keys()].sort(), ["c10", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"].sort());
  // Without unchanged facts left to drop, the oldest changed ones go.
  const changedOnly = new Map<string, Facts>();
  for (let i = 0; i < 12; i++) changedOnly.set(`x${i}`, { at: at(i), version: "changed" });
  assert.equal(trimFacts(changedOnly, unchanged, 10), 3);
  assert.deepEqual([...changedOnly.keys()], ["x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11"]);
});

test("over the cap, the oldest minutes of counts go first", () => {
  const buckets = new Map<string, number>();
  for (let m = 0; m < 11; m++) buckets.set(`a|${m * 60_000}`, 1);
  assert.equal(trimCounts(buckets, 10), 2);
  assert.ok(!buckets.has("a|0") && !buckets.has("a|60000") && buckets.has("a|120000"));
});

test("the caps hold a 10,000-cluster fleet's facts and several minutes of its counts", () => {
  assert.ok(BUFFER_LIMITS.facts >= 10_000);
  assert.ok(BUFFER_LIMITS.counts >= 10_000 * 5);
});

test("a snapshot whose reload fails keeps serving its last value; one that never loaded throws", async () => {
  let fail = false;
  let loads = 0;
  const snap = new Snapshot(async () => {
    loads++;
    if (fail) throw new Error("Connection terminated unexpectedly");
    return loads;
  }, 0);
  assert.equal(await snap.get(), 1);
  fail = true;
  for (let i = 0; i < 3; i++) {
    assert.equal(await snap.get(), 1, "the last value, not the error");
    await new Promise((r) => setImmediate(r));
  }
  assert.ok(loads >= 3, "it kept trying");
  fail = false;
  // Callers get the last value while the reload behind them runs; once one succeeds, fresh values.
  let value = await snap.get();
  for (let i = 0; i < 20 && value === 1; i++) {
    await new Promise((r) => setImmediate(r));
    value = await snap.get();
  }
  assert.ok(value > 1, "a fresh value once the database is back");

  const never = new Snapshot<number>(async () => {
    throw new Error("Connection terminated unexpectedly");
  }, 1000);
  await assert.rejects(never.get(), /Connection terminated/);
});

test("once a reload failed, a hanging reload does not hold callers", async () => {
  let mode: "ok" | "fail" | "hang" = "ok";
  const snap = new Snapshot<number>(async () => {
    if (mode === "fail") throw new Error("Connection terminated unexpectedly");
    if (mode === "hang") return new Promise<number>(() => {});
    return 7;
  }, 0);
  assert.equal(await snap.get(), 7);
  mode = "fail";
  assert.equal(await snap.get(), 7);
  mode = "hang";
  const answer = await Promise.race([snap.get(), new Promise((r) => setTimeout(() => r("waited"), 200))]);
  assert.equal(answer, 7, "the last value at once, not a wait for the database");
});

test("past its age a snapshot answers at once while it reloads; after invalidate() callers wait for a reload begun after it", async () => {
  let version = 1;
  const gates: (() => void)[] = [];
  const snap = new Snapshot<number>(async () => {
    const seen = version;
    await new Promise<void>((resolve) => gates.push(resolve));
    return seen;
  }, 0);
  const first = snap.get();
  gates.shift()!();
  assert.equal(await first, 1);
  // Stale: the old value at once, a reload behind it (the database may be busy with a wave).
  version = 2;
  assert.equal(await snap.get(), 1);
  assert.equal(gates.length, 1, "one reload started");
  // A change made here: the reload in flight began before it, so it does not count.
  version = 3;
  snap.invalidate();
  let answered: number | undefined;
  const waiting = snap.get().then((v) => (answered = v));
  gates.shift()!(); // the old reload lands (it saw version 2)
  await new Promise((r) => setImmediate(r));
  assert.equal(answered, undefined, "still waiting for a reload that saw the change");
  while (!gates.length) await new Promise((r) => setImmediate(r));
  gates.shift()!();
  await waiting;
  assert.equal(answered, 3);
});
