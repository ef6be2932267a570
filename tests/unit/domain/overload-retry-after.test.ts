// The Retry-After of 503 overloaded (lib/domain/overload-retry-after.ts): the backlog's wait at
// the recent rate, spread per answer, whole seconds within the bounds. Random and time are given.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { seededRandom } from "@/lib/agent/clock";
import { overloadRetryAfter, SigningBacklog } from "@/lib/domain/overload-retry-after";

const policy = { minSeconds: 2, maxSeconds: 60, spread: 0.5, pace: 1 };
const low = () => 0;
const high = () => 0.999999;

describe("overloadRetryAfter", () => {
  test("the backlog's wait at the rate, plus up to half as long again", () => {
    // 300 ahead at 20/s: 15 s, spread over a 7.5 s window.
    assert.equal(overloadRetryAfter({ ahead: 300, ratePerSecond: 20 }, policy, low), 15);
    assert.equal(
      overloadRetryAfter({ ahead: 300, ratePerSecond: 20 }, policy, () => 0.5),
      19,
    );
    assert.equal(overloadRetryAfter({ ahead: 300, ratePerSecond: 20 }, policy, high), 23);
  });

  test("pace: the share of the backlog's time the wait says (agents add their own jitter on top)", () => {
    const half = { ...policy, pace: 0.5 };
    assert.equal(overloadRetryAfter({ ahead: 300, ratePerSecond: 20 }, half, low), 8, "half of 15 s, in whole seconds");
    assert.equal(overloadRetryAfter({ ahead: 300, ratePerSecond: 20 }, half, high), 12, "plus up to half as long again");
  });

  test("no rate known yet, or a small backlog: the minimum, spread over a window as long", () => {
    assert.equal(overloadRetryAfter({ ahead: 500, ratePerSecond: null }, policy, low), 2);
    assert.equal(overloadRetryAfter({ ahead: 500, ratePerSecond: null }, policy, high), 4);
    assert.equal(overloadRetryAfter({ ahead: 1, ratePerSecond: 100 }, policy, high), 4);
    assert.equal(overloadRetryAfter({ ahead: 0, ratePerSecond: 0 }, policy, low), 2);
  });

  test("a backlog past the maximum spreads over the range's last part, never past it nor piled on it", () => {
    const huge = { ahead: 100_000, ratePerSecond: 10 };
    assert.equal(overloadRetryAfter(huge, policy, low), 40);
    assert.equal(overloadRetryAfter(huge, policy, high), 60);
    const random = seededRandom(5);
    const answers = Array.from({ length: 2000 }, () => overloadRetryAfter(huge, policy, random));
    assert.ok(answers.every((s) => s >= 40 && s <= 60));
    const atMax = answers.filter((s) => s === 60).length;
    assert.ok(atMax < 200, `not piled on the maximum: ${atMax} of 2000`);
  });

  test("whole seconds within the bounds, whatever the input", () => {
    const random = seededRandom(9);
    for (const ahead of [0, 1, 7, 99, 1234, 1e9])
      for (const ratePerSecond of [null, 0, 0.1, 3.3, 250])
        for (const p of [
          policy,
          { minSeconds: 5, maxSeconds: 5, spread: 0.5, pace: 0.5 },
          { minSeconds: 1, maxSeconds: 3600, spread: 1, pace: 1 },
        ]) {
          const s = overloadRetryAfter({ ahead, ratePerSecond }, p, random);
          assert.ok(Number.isInteger(s) && s >= p.minSeconds && s <= p.maxSeconds, `${ahead} ${ratePerSecond}: ${s}`);
        }
  });

  test("a fleet refused together is told to come back spread, not in one second", () => {
    // 2,000 refusals in one instant against a server signing 50/s: each answer counts the ones
    // before it, so the answers cover the backlog's 40 s, not one value.
    const backlog = new SigningBacklog(0);
    for (let i = 0; i < 500; i++) backlog.finish(i * 20); // 50/s over the last 10 s
    const random = seededRandom(3);
    const now = 10_000;
    const perSecond = new Map<number, number>();
    for (let i = 0; i < 2000; i++) {
      const s = overloadRetryAfter(backlog.backlog(now, 8, 64), policy, random);
      backlog.promise(now, s);
      perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
    }
    const busiest = Math.max(...perSecond.values());
    assert.ok(perSecond.size >= 30, `answers over ${perSecond.size} distinct seconds`);
    assert.ok(busiest <= 150, `at most 150 told the same second (3 s of signing), got ${busiest}`);
  });
});

describe("SigningBacklog", () => {
  test("the rate is work finished over the window, over the time since start while shorter", () => {
    const b = new SigningBacklog(0, 10_000);
    assert.equal(b.rate(5_000), null, "nothing finished: no rate");
    for (let t = 0; t < 4_000; t += 100) b.finish(t); // 40 in 4 s
    assert.equal(b.rate(4_000), 10);
    assert.equal(b.rate(40_000), null, "forgotten once out of the window");
  });

  test("refusals are owed until their Retry-After has passed, and count ahead of the next", () => {
    const b = new SigningBacklog(0);
    b.promise(1_000, 5);
    b.promise(1_000, 10);
    assert.equal(b.owed(1_000), 2);
    assert.equal(b.owed(5_999), 2);
    assert.equal(b.owed(6_000), 1, "the first is due back");
    assert.deepEqual(b.backlog(6_000, 3, 4), { ahead: 8, ratePerSecond: null });
    assert.equal(b.owed(11_000), 0);
  });
});
