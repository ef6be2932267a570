import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { changeRows, describeStatusHistory, minuteRows } from "@/components/overview/status-history-data";

const T0 = Date.parse("2026-01-01T10:00:00.000Z");
const sample = (i: number, NotReady: number, Ready = 100) => ({
  at: new Date(T0 + i * 60_000).toISOString(),
  Ready,
  NotReady,
  Pending: 0,
  Draining: 0,
});

describe("the Overview's status history", () => {
  test("has one row per minute, a missing minute left empty rather than interpolated", () => {
    const rows = minuteRows([sample(0, 1), sample(1, 3), sample(3, 2)]);
    assert.deepEqual(
      rows.map((r) => r.NotReady),
      [1, 3, null, 2],
    );
    assert.deepEqual(
      rows.map((r) => r.t - T0),
      [0, 60_000, 120_000, 180_000],
    );
  });

  test("keeps every minute of a short NotReady spike", () => {
    const rows = minuteRows(Array.from({ length: 30 }, (_, i) => sample(i, i === 12 ? 5 : 0)));
    assert.equal(rows.length, 30);
    assert.equal(rows[12]!.NotReady, 5);
    // The table lists each change: the spike's minute and the one after it.
    assert.deepEqual(
      changeRows(rows).map((r) => (r.t - T0) / 60_000),
      [0, 12, 13, 29],
    );
  });

  test("describes the latest counts, the peaks and the missing minutes", () => {
    const text = describeStatusHistory(minuteRows([sample(0, 1, 99), sample(1, 4, 96), sample(3, 2, 98)]));
    assert.match(text, /One point a minute/);
    assert.match(text, /1 minute without a sample/);
    assert.match(text, /NotReady 2 now, peak 4/);
    assert.match(text, /Ready 99 → 98/);
  });
});
