// Admission control for signing work (lib/server/agents/admission.ts): each piece of work finishes
// only when the test says so, so a slot leaked, a queue overtaken or a refusal without Retry-After
// would show. No timers: bounded by construction.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AdmissionGate } from "@/lib/server/agents/admission";
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

function gate(maxInFlight: number, maxQueued: number) {
  const counts = { admitted: 0, queued: 0, refused: 0 };
  const g = new AdmissionGate({ maxInFlight, maxQueued, retryAfterSeconds: 3 }, (outcome) => counts[outcome]++);
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
  assert.deepEqual(counts, { admitted: 3, queued: 1, refused: 1 });
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
