// Admission control for signing work (lib/server/agent-port/admission.ts, the rule in
// lib/domain/admission.ts): each piece of work finishes only when the test says so, so a slot
// leaked, a queue overtaken or a refusal without Retry-After would show. The event-loop lag is a
// value the test sets. No timers: bounded by construction.
import assert from "node:assert/strict";
import { test } from "node:test";
import { admissionDecision, LagWindow } from "@/lib/domain/admission";
import { AdmissionGate, type AdmissionOutcome } from "@/lib/server/agent-port/admission";
import { ApiError } from "@/lib/server/api/errors";

function deferred<T = string>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

function gate(
  maxInFlight: number,
  maxQueued: number,
  lag?: { maxMs: number; now: { ms: number } },
  clock = { now: () => 0, random: () => 0 },
) {
  const counts: Record<AdmissionOutcome, number> = { admitted: 0, queued: 0, refused: 0, lagging: 0 };
  const g = new AdmissionGate(
    {
      maxInFlight,
      maxQueued,
      retryAfter: { minSeconds: 3, maxSeconds: 60, spread: 0.5, pace: 1 },
      maxEventLoopLagMs: lag?.maxMs,
    },
    (outcome) => counts[outcome]++,
    () => lag?.now.ms ?? 0,
    clock,
  );
  return { g, counts };
}

test("runs up to maxInFlight at once, queues up to maxQueued, refuses the rest with 503 overloaded and Retry-After", async () => {
  const { g, counts } = gate(2, 1);
  const work = [deferred(), deferred(), deferred()];
  const started: number[] = [];
  const runs = work.map((d, i) => g.run(() => (started.push(i), d.promise)));
  await tick();
  assert.deepEqual(started, [0, 1], "the third waits");
  assert.deepEqual(g.load, { inFlight: 2, queued: 1 });

  const refused = await g.run(async () => "never").catch((e: unknown) => e);
  assert.ok(refused instanceof ApiError);
  assert.equal(refused.code, "overloaded");
  assert.equal(refused.status, 503);
  assert.equal(refused.headers?.["retry-after"], "3");

  work[0]!.resolve("a");
  assert.equal(await runs[0], "a");
  await tick();
  assert.deepEqual(started, [0, 1, 2], "a finished slot goes to the queue");
  assert.deepEqual(g.load, { inFlight: 2, queued: 0 });
  work[1]!.resolve("b");
  work[2]!.resolve("c");
  assert.deepEqual(await Promise.all(runs), ["a", "b", "c"]);
  assert.deepEqual(g.load, { inFlight: 0, queued: 0 });
  assert.deepEqual(counts, { admitted: 3, queued: 1, refused: 1, lagging: 0 });
});

test("a failing piece of work frees its slot and its error reaches the caller", async () => {
  const { g } = gate(1, 0);
  await assert.rejects(
    g.run(async () => {
      throw new Error("boom");
    }),
    /boom/,
  );
  assert.deepEqual(g.load, { inFlight: 0, queued: 0 });
  assert.equal(await g.run(async () => "next"), "next");
});

test("the queue is served in arrival order and a newcomer does not overtake it", async () => {
  const { g } = gate(1, 3);
  const first = deferred();
  const order: string[] = [];
  const runs = [g.run(() => first.promise)];
  for (const name of ["q1", "q2", "q3"]) runs.push(g.run(async () => (order.push(name), name)));
  first.resolve("first");
  // Arrives while the queue drains: it must wait behind q1..q3, or be refused, never run first.
  const late = g.run(async () => (order.push("late"), "late")).catch((e: unknown) => (e as ApiError).code);
  await Promise.all(runs);
  await late;
  assert.deepEqual(order.slice(0, 3), ["q1", "q2", "q3"]);
});

test("Retry-After follows the backlog at the recent signing rate, and each answer is spread", async () => {
  const clock = { ms: 0, r: 0 };
  const { g } = gate(1, 0, undefined, { now: () => clock.ms, random: () => clock.r });
  // 20 pieces of work finished over 10 s: 2 per second.
  for (let i = 0; i < 20; i++) {
    clock.ms = i * 500;
    await g.run(async () => "done");
  }
  clock.ms = 10_000;
  const running = deferred();
  const first = g.run(() => running.promise);
  const retryAfter = async () => {
    const refused = await g.run(async () => "never").catch((e: unknown) => e);
    assert.ok(refused instanceof ApiError && refused.code === "overloaded");
    return Number(refused.headers?.["retry-after"]);
  };
  // Each refusal is owed a slot ahead of the next: 1 running + k told before, at 2 per second.
  const answers: number[] = [];
  for (let k = 0; k < 20; k++) answers.push(await retryAfter());
  assert.equal(answers[0], 3, "one ahead at 2/s: the minimum");
  assert.equal(answers[19], 10, "20 ahead at 2/s: 10 s");
  assert.ok(
    answers.every((s, i) => i === 0 || s >= answers[i - 1]!),
    `later refusals wait longer: ${answers.join(",")}`,
  );
  clock.r = 0.999;
  assert.equal(await retryAfter(), 16, "21 ahead: 10.5 s, plus up to half as long again");
  running.resolve("first");
  await first;
});

test("the decision: limits when the loop keeps up; while it lags, fewer in flight the worse it is, none queued", () => {
  const limits = { maxInFlight: 2, maxQueued: 1, maxEventLoopLagMs: 50 };
  const at = (inFlight: number, queued: number, eventLoopLagMs: number) =>
    admissionDecision({ inFlight, queued, eventLoopLagMs }, limits);
  assert.equal(at(0, 0, 0), "admit");
  assert.equal(at(1, 0, 50), "admit", "at the threshold is not above it");
  assert.equal(at(2, 0, 10), "queue");
  assert.equal(at(2, 1, 10), "busy");
  assert.equal(at(1, 0, 51), "lagging", "a free slot is not enough while the loop lags");
  assert.equal(at(2, 1, 500), "lagging");
  assert.equal(at(0, 0, 5000), "admit", "one request still runs, so a wave keeps moving whatever the lag's cause");
  const eight = (inFlight: number, eventLoopLagMs: number) =>
    admissionDecision({ inFlight, queued: 0, eventLoopLagMs }, { maxInFlight: 8, maxQueued: 64, maxEventLoopLagMs: 50 });
  assert.equal(eight(3, 100), "admit", "twice the threshold: 4 of 8 may run");
  assert.equal(eight(4, 100), "lagging", "and the 5th is refused, not queued");
  assert.equal(eight(1, 250), "lagging", "five times the threshold: 1 of 8");
  assert.equal(eight(5, 60), "admit", "6 of 8 just over the threshold");
  assert.equal(eight(6, 60), "lagging");
  assert.equal(
    admissionDecision({ inFlight: 1, queued: 0, eventLoopLagMs: 5000 }, { ...limits, maxEventLoopLagMs: 0 }),
    "admit",
    "0 turns the check off",
  );
});

test("the gate refuses with 503 overloaded and Retry-After while the loop lags, and admits again once it does not", async () => {
  const lag = { maxMs: 50, now: { ms: 0 } };
  const { g, counts } = gate(8, 64, lag);
  const running = deferred();
  const first = g.run(() => running.promise);
  lag.now.ms = 1000; // 20 times the threshold: 1 of 8 may run, and one does
  const refused = await g.run(async () => "never").catch((e: unknown) => e);
  assert.ok(refused instanceof ApiError);
  assert.equal(refused.code, "overloaded");
  assert.equal(refused.status, 503);
  assert.equal(refused.headers?.["retry-after"], "3");
  assert.deepEqual(g.load, { inFlight: 1, queued: 0 }, "a refusal takes no slot");
  lag.now.ms = 20;
  assert.equal(await g.run(async () => "second"), "second");
  running.resolve("first");
  assert.equal(await first, "first");
  assert.deepEqual(counts, { admitted: 2, queued: 0, refused: 0, lagging: 1 });
});

test("the lag window: p99 of the last window's timer drifts, or the stall under way", () => {
  const w = new LagWindow(1000, 20);
  assert.equal(w.recent(0), 0, "no sample: no lag");
  for (let t = 0; t <= 980; t += 20) w.record(t, 1);
  assert.equal(w.recent(990), 1);
  w.record(1300, 300); // the timer fired 300 ms late: the loop was blocked
  assert.equal(w.recent(1310), 300);
  for (let t = 1320; t <= 2280; t += 20) w.record(t, 2);
  assert.equal(w.recent(2290), 300, "still inside the window");
  w.record(2320, 2);
  assert.equal(w.recent(2321), 2, "a second later the block is forgotten");
  assert.equal(w.recent(2320 + 20 + 400), 400, "no tick for 420 ms: a 400 ms stall under way counts before the timer can say so");
});
