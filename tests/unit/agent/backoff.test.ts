import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  backoffCeiling,
  backoffDelay,
  cappedAt,
  DEFAULT_BACKOFF,
  jitteredInterval,
  parseRetryAfter,
  retryAfterDelay,
} from "@/lib/agent/backoff";
import { seededRandom } from "@/lib/agent/clock";
import { rotationDueAt, shouldRotate } from "@/lib/agent/rotation";

describe("backoff", () => {
  test("full jitter: 0 at random()=0, the exponential ceiling at random()->1, capped at 60 s", () => {
    const almostOne = () => 0.999999;
    const expected = [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000];
    expected.forEach((ceiling, attempt) => {
      assert.equal(backoffCeiling(attempt), ceiling);
      assert.equal(
        backoffDelay(attempt, () => 0),
        0,
      );
      assert.equal(backoffDelay(attempt, almostOne), ceiling - 1);
    });
    assert.equal(backoffDelay(1000, almostOne), 59999, "huge attempt numbers stay capped");
    assert.equal(backoffDelay(-3, almostOne), 999);
  });

  test("delays stay within [0, ceiling] and spread out", () => {
    const random = seededRandom(7);
    for (let attempt = 0; attempt < 12; attempt++) {
      const samples = Array.from({ length: 200 }, () => backoffDelay(attempt, random));
      for (const s of samples) assert.ok(s >= 0 && s <= backoffCeiling(attempt), `${attempt}: ${s}`);
      assert.ok(new Set(samples).size > 100, "jittered, not lockstep");
    }
  });

  test("a heartbeat's backoff capped at its interval: full jitter never past it, nor below the base", () => {
    const almostOne = () => 0.999999;
    const tenSeconds = cappedAt(DEFAULT_BACKOFF, 10_000);
    assert.equal(backoffDelay(2, almostOne, tenSeconds), 3999, "below the cap, the usual growth");
    assert.equal(backoffDelay(12, almostOne, tenSeconds), 9999, "grown past an interval: within one");
    assert.equal(cappedAt(DEFAULT_BACKOFF, 120_000).capMs, 60_000, "never raised");
    assert.equal(cappedAt(DEFAULT_BACKOFF, 10).capMs, 1_000, "never below the base");
  });

  test("custom policy", () => {
    assert.equal(
      backoffDelay(3, () => 0.5, { baseMs: 100, capMs: 500 }),
      250,
    );
  });

  test("after Retry-After: never earlier, full jitter over at least Retry-After again (or the grown backoff)", () => {
    assert.equal(
      retryAfterDelay(5000, 0, () => 0),
      5000,
    );
    assert.equal(
      retryAfterDelay(5000, 0, () => 0.5),
      7500,
      "window of 5 s (Retry-After), not 1 s (first backoff step)",
    );
    assert.equal(
      retryAfterDelay(1000, 5, () => 0.5),
      17000,
      "window of 32 s once the backoff outgrew Retry-After",
    );
    // A storm of 1,000 agents told "5 s" at once comes back spread over [5 s, 10 s).
    const random = seededRandom(11);
    const waits = Array.from({ length: 1000 }, () => retryAfterDelay(5000, 0, random));
    assert.ok(waits.every((w) => w >= 5000 && w < 10000));
    const perSecond = [0, 0, 0, 0, 0];
    for (const w of waits) perSecond[Math.floor((w - 5000) / 1000)]! += 1;
    assert.ok(Math.max(...perSecond) < 300, `spread evenly: ${perSecond.join(",")}`);
  });

  test("heartbeat interval jitter is ±10%", () => {
    assert.equal(
      jitteredInterval(30, () => 0),
      27000,
    );
    assert.equal(
      jitteredInterval(30, () => 0.5),
      30000,
    );
    assert.equal(
      jitteredInterval(30, () => 1),
      33000,
    );
    const random = seededRandom(3);
    for (let i = 0; i < 500; i++) {
      const v = jitteredInterval(10, random);
      assert.ok(v >= 9000 && v <= 11000);
    }
  });

  test("Retry-After: seconds, HTTP date, garbage, and an upper bound", () => {
    const now = Date.parse("2026-11-29T12:00:00Z");
    assert.equal(parseRetryAfter("7", now), 7000);
    assert.equal(parseRetryAfter(["3"], now), 3000);
    assert.equal(parseRetryAfter("Sun, 29 Nov 2026 12:00:30 GMT", now), 30_000);
    assert.equal(parseRetryAfter("Sun, 29 Nov 2026 11:00:00 GMT", now), 0);
    assert.equal(parseRetryAfter("soon", now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter("999999", now), 3600_000);
  });
});

describe("rotation timing", () => {
  const day = 86_400_000;
  const lifetime = { notBefore: 0, notAfter: 90 * day };

  test("due once a third or less of the lifetime remains", () => {
    assert.equal(rotationDueAt(lifetime), 60 * day);
    assert.equal(shouldRotate(lifetime, 0), false);
    assert.equal(shouldRotate(lifetime, 60 * day - 1), false);
    assert.equal(shouldRotate(lifetime, 60 * day), true);
    assert.equal(shouldRotate(lifetime, 89 * day), true);
    assert.equal(shouldRotate(lifetime, 91 * day), true, "expired: certainly due");
  });

  test("scales with short lifetimes", () => {
    const short = { notBefore: 1_000, notAfter: 1_000 + 90_000 };
    assert.equal(shouldRotate(short, 1_000 + 59_999), false);
    assert.equal(shouldRotate(short, 1_000 + 60_000), true);
  });
});
