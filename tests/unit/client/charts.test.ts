import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { describeRate, perSecondSeries } from "@/components/ui/charts/chart-data";

const T0 = Date.parse("2026-01-01T10:00:00.000Z");
const minute = (i: number) => new Date(T0 + i * 60_000).toISOString();

describe("perSecondSeries", () => {
  test("divides per-minute counts by 60 and leaves out the minute still filling", () => {
    const series = perSecondSeries(
      [
        { at: minute(0), count: 600 },
        { at: minute(1), count: 90 },
        { at: minute(2), count: 7 },
      ],
      T0 + 2 * 60_000 + 10_000,
    );
    assert.deepEqual(
      series.map((p) => p.perSecond),
      [10, 1.5],
    );
    assert.match(describeRate(series), /latest 1.5\/s, lowest 1.5\/s, highest 10\/s/);
    assert.equal(describeRate([]), "No heartbeat data yet.");
  });
});
