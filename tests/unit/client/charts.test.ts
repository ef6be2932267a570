import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  describeHistory,
  describeRate,
  describeTimeline,
  historyRows,
  perSecondSeries,
  summarizeTimeline,
  timelineBars,
} from "@/components/ui/charts/chart-data";

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

describe("timelineBars", () => {
  const items = [0, 0, 4, 0, 4, 0].map((count, i) => ({ at: minute(i), count }));

  test("minutes before registration are not gaps; empty minutes after are; the open minute is not", () => {
    const bars = timelineBars(items, 4, minute(1), T0 + 5 * 60_000 + 5_000);
    assert.deepEqual(
      bars.map((b) => [b.count, b.gap]),
      [
        [null, null],
        [0, 4],
        [4, null],
        [0, 4],
        [4, null],
        [0, null],
      ],
    );
  });

  test("summary counts gaps and the longest run", () => {
    const bars = timelineBars(
      [4, 0, 0, 0, 4, 0, 4].map((count, i) => ({ at: minute(i), count })),
      4,
      null,
      T0 + 60 * 60_000,
    );
    const s = summarizeTimeline(bars);
    assert.equal(s.minutes, 7);
    assert.equal(s.gapMinutes, 4);
    assert.equal(s.longestGap, 3);
    assert.equal(s.longestGapEnd, T0 + 3 * 60_000);
    assert.match(describeTimeline(s, 4), /^4 of the last 7 minutes had no heartbeat/);
  });

  test("a young cluster's timeline starts at its registration, but shows at least 30 minutes", () => {
    const hours = Array.from({ length: 360 }, (_, i) => ({ at: minute(i), count: i >= 300 ? 4 : 0 }));
    const young = timelineBars(hours, 4, minute(300), T0 + 400 * 60_000);
    assert.equal(young.length, 60);
    assert.equal(young[0]!.t, T0 + 300 * 60_000);
    const newborn = timelineBars(hours, 4, minute(355), T0 + 400 * 60_000);
    assert.equal(newborn.length, 30);
    assert.equal(newborn.filter((b) => b.count === null).length, 25);
    assert.equal(timelineBars(hours, 4, null, T0 + 400 * 60_000).length, 360);
  });

  test("a steady cluster is described as such", () => {
    const bars = timelineBars(
      [4, 4].map((count, i) => ({ at: minute(i), count })),
      4,
      null,
      T0 + 60 * 60_000,
    );
    assert.match(describeTimeline(summarizeTimeline(bars), 4), /^Heartbeats in every one of the last 2 minutes/);
  });
});

describe("status history", () => {
  test("fewer than two samples is not a trend", () => {
    assert.equal(
      describeHistory(historyRows([{ at: minute(0), Ready: 1, NotReady: 0, Pending: 0, Draining: 0 }])),
      "Not enough samples yet to show a trend.",
    );
  });

  test("describes first and last values and the NotReady peak", () => {
    const rows = historyRows([
      { at: minute(0), Ready: 10, NotReady: 0, Pending: 0, Draining: 0 },
      { at: minute(1), Ready: 7, NotReady: 3, Pending: 0, Draining: 0 },
      { at: minute(2), Ready: 9, NotReady: 1, Pending: 0, Draining: 0 },
    ]);
    assert.match(describeHistory(rows), /Ready 10 → 9, NotReady 0 → 1 \(peak 3\)/);
  });
});
