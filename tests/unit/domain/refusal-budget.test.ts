// Which refused registrations keep a row each and which are counted (lib/domain/refusal-budget.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ITEMISED_PER_MINUTE,
  ITEMISED_PER_SOURCE,
  MINUTE_MS,
  minuteStart,
  RefusalBudget,
  TRACKED_SOURCES,
  UNRECORDED_RESULTS,
} from "@/lib/domain/refusal-budget";

const T0 = 1_800_000_000_000;

function takes(budget: RefusalBudget, n: number, source: string | null, token: string | null, now = T0) {
  return Array.from({ length: n }, () => budget.take(source, token, now));
}

describe("refusal budget", () => {
  test("a source's first refusals a minute are itemised, the rest counted; the next minute starts afresh", () => {
    const budget = new RefusalBudget();
    const first = takes(budget, ITEMISED_PER_SOURCE + 5, "203.0.113.7", null);
    assert.deepEqual(first.slice(0, ITEMISED_PER_SOURCE), Array(ITEMISED_PER_SOURCE).fill("itemise"));
    assert.deepEqual(first.slice(ITEMISED_PER_SOURCE), Array(5).fill("count"));
    assert.equal(budget.take("203.0.113.7", null, T0 + MINUTE_MS), "itemise");
  });

  test("each source, and each real token of a source, has its own budget", () => {
    const budget = new RefusalBudget();
    takes(budget, ITEMISED_PER_SOURCE, "203.0.113.7", null);
    assert.equal(budget.take("203.0.113.7", null, T0), "count");
    assert.equal(budget.take("203.0.113.8", null, T0), "itemise");
    assert.equal(budget.take("203.0.113.7", "tok1", T0), "itemise");
  });

  test("many sources share a cap per minute, and the tracking itself is bounded", () => {
    const budget = new RefusalBudget();
    const entries = Array.from({ length: ITEMISED_PER_MINUTE + 10 }, (_, i) =>
      budget.take(`10.0.${i >> 8}.${i & 255}`, null, T0),
    );
    assert.equal(entries.filter((e) => e === "itemise").length, ITEMISED_PER_MINUTE);
    const wide = new RefusalBudget();
    for (let i = 0; i < TRACKED_SOURCES; i++) wide.take(`s${i}`, null, T0);
    assert.equal(wide.take("one-more", null, T0), "count");
  });

  test("minutes start on the minute; a 429 never writes", () => {
    assert.equal(minuteStart(T0 + 59_999) % MINUTE_MS, 0);
    assert.equal(minuteStart(T0 + 61_000) - minuteStart(T0), MINUTE_MS);
    assert.ok(UNRECORDED_RESULTS.has("rate_limited"));
  });
});
