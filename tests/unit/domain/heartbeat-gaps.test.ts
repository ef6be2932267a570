import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  gapSummaryText,
  heartbeatGapBars,
  isShortMinute,
  notReadyBands,
  notReadyIntervals,
  summarizeGaps,
} from "@/lib/domain/heartbeat-gaps";

const T0 = Date.parse("2026-01-01T10:00:00.000Z");
const minute = (i: number) => new Date(T0 + i * 60_000).toISOString();
const items = (counts: number[]) => counts.map((count, i) => ({ at: minute(i), count }));

describe("notReadyIntervals", () => {
  test("pairs transitions into and out of NotReady, in any order", () => {
    const events = [
      { kind: "status", from: "NotReady", to: "Ready", at: minute(9) },
      { kind: "phase", from: "Registration", to: "Active", at: minute(1) },
      { kind: "status", from: "Ready", to: "NotReady", at: minute(5) },
    ];
    assert.deepEqual(notReadyIntervals(events, { status: "Ready", since: minute(9), now: T0 + 10 * 60_000 }), [
      { from: T0 + 5 * 60_000, to: T0 + 9 * 60_000 },
    ]);
  });

  test("a cluster NotReady now has an open span, from its transition or its status time", () => {
    const into = [{ kind: "status", from: "Ready", to: "NotReady", at: minute(4) }];
    assert.deepEqual(notReadyIntervals(into, { status: "NotReady", since: minute(4), now: T0 + 5 * 60_000 }), [
      { from: T0 + 4 * 60_000, to: null },
    ]);
    assert.deepEqual(notReadyIntervals([], { status: "NotReady", since: minute(2), now: T0 + 5 * 60_000 }), [
      { from: T0 + 2 * 60_000, to: null },
    ]);
  });

  test("a recovery whose start is older than the events covers everything before it", () => {
    const events = [{ kind: "status", from: "NotReady", to: "Ready", at: minute(3) }];
    assert.deepEqual(notReadyIntervals(events, { status: "Ready", since: minute(3), now: T0 + 5 * 60_000 }), [
      { from: -Infinity, to: T0 + 3 * 60_000 },
    ]);
  });
});

describe("isShortMinute", () => {
  test("no heartbeat is always short; one fewer than expected is jitter; two fewer is short", () => {
    assert.equal(isShortMinute(0, 1), true);
    assert.equal(isShortMinute(1, 1), false);
    assert.equal(isShortMinute(1, 2), false);
    assert.equal(isShortMinute(3, 4), false);
    assert.equal(isShortMinute(2, 4), true);
  });
});

describe("heartbeatGapBars", () => {
  test("empty, short and NotReady minutes are gaps; the minute still filling is not", () => {
    const now = T0 + 7 * 60_000 + 5_000;
    const bars = heartbeatGapBars(
      items([4, 0, 4, 1, 4, 4, 4, 0]),
      4,
      minute(0),
      [{ from: T0 + 4 * 60_000 + 30_000, to: T0 + 5 * 60_000 + 10_000 }],
      now,
    );
    assert.deepEqual(
      bars.map((b) => b.why),
      [null, "none", null, "short", "notReady", "notReady", null, null],
    );
    // The gap column fills the minute up to what was expected.
    assert.deepEqual(
      bars.map((b) => b.gap),
      [null, 4, null, 3, null, null, null, null],
    );
    const s = summarizeGaps(bars);
    assert.deepEqual(s, { minutes: 8, gapMinutes: 4, gaps: 2, longestGap: 3, longestGapEnd: T0 + 5 * 60_000, ongoing: 0 });
    assert.equal(gapSummaryText(s), "2 gaps · longest 3 min");
    assert.deepEqual(notReadyBands(bars), [{ x1: T0 + 4 * 60_000, x2: T0 + 5 * 60_000 }]);
  });

  test("an outage with heartbeats still arriving is not 'No gaps'", () => {
    // The agent heartbeats but the cluster is NotReady (its API server is down): every minute of it is a gap.
    const now = T0 + 5 * 60_000 + 1_000;
    const bars = heartbeatGapBars(items([4, 4, 4, 4, 4, 4]), 4, minute(0), [{ from: T0 + 60_000, to: null }], now);
    const s = summarizeGaps(bars);
    assert.equal(s.gaps, 1);
    assert.equal(s.gapMinutes, 5);
    assert.notEqual(gapSummaryText(s), "No gaps");
    assert.deepEqual(notReadyBands(bars), [{ x1: T0 + 60_000, x2: T0 + 5 * 60_000 }]);
  });

  test("a gap that has not ended says so, not 'longest'", () => {
    // NotReady since minute 1 and still: the summary must not read as a gap that is over.
    const notReady = heartbeatGapBars(
      items([4, 4, 4, 4, 4, 4]),
      4,
      minute(0),
      [{ from: T0 + 60_000, to: null }],
      T0 + 5 * 60_000 + 1_000,
    );
    assert.equal(gapSummaryText(summarizeGaps(notReady)), "1 gap · gap ongoing, 5 min so far");
    // Silent for two whole minutes, not NotReady yet: the minute still filling does not end the gap.
    const silent = heartbeatGapBars(items([4, 4, 0, 0, 0]), 4, minute(0), [], T0 + 4 * 60_000 + 30_000);
    assert.equal(summarizeGaps(silent).ongoing, 2);
    assert.equal(gapSummaryText(summarizeGaps(silent)), "1 gap · gap ongoing, 2 min so far");
    // An earlier, longer gap is still named as the longest.
    const again = heartbeatGapBars(items([4, 0, 0, 0, 4, 0, 0]), 4, minute(0), [], T0 + 7 * 60_000);
    assert.equal(gapSummaryText(summarizeGaps(again)), "2 gaps · gap ongoing, 2 min so far · longest 3 min");
    // Heartbeats again: the gap is over.
    const over = heartbeatGapBars(items([4, 0, 0, 4, 4]), 4, minute(0), [], T0 + 5 * 60_000);
    assert.equal(gapSummaryText(summarizeGaps(over)), "1 gap · longest 2 min");
  });

  test("a cluster Ready again ends its gap at once, before the minute is over or the sweeper has recorded it", () => {
    const now = T0 + 4 * 60_000 + 40_000;
    // NotReady from 2:30; Ready again (heartbeat at 4:20), the sweeper has not recorded the recovery yet.
    const events = [{ kind: "status", from: "Ready", to: "NotReady", at: new Date(T0 + 150_000).toISOString() }];
    const spans = notReadyIntervals(events, { status: "Ready", since: minute(2), now });
    assert.deepEqual(spans, [{ from: T0 + 150_000, to: now }]);
    const bars = heartbeatGapBars(items([4, 4, 4, 4, 2]), 4, minute(0), spans, now);
    const s = summarizeGaps(bars);
    assert.equal(s.ongoing, 0);
    assert.equal(gapSummaryText(s), "1 gap · longest 3 min");
    // The recovered minute is still shaded as NotReady.
    assert.deepEqual(notReadyBands(bars), [{ x1: T0 + 2 * 60_000, x2: T0 + 4 * 60_000 }]);
    // Still NotReady: the same minutes are a gap that has not ended.
    const open = heartbeatGapBars(items([4, 4, 4, 4, 2]), 4, minute(0), [{ from: T0 + 150_000, to: null }], now);
    assert.equal(gapSummaryText(summarizeGaps(open)), "1 gap · gap ongoing, 3 min so far");
  });

  test("minutes before registration are neither counted nor gaps; a young timeline is cropped", () => {
    const hours = items(Array.from({ length: 360 }, () => 0));
    const young = heartbeatGapBars(hours, 4, minute(300), [], T0 + 400 * 60_000);
    assert.equal(young.length, 60);
    assert.equal(young[0]!.t, T0 + 300 * 60_000);
    const newborn = heartbeatGapBars(hours, 4, minute(355), [], T0 + 400 * 60_000);
    assert.equal(newborn.length, 30);
    assert.equal(summarizeGaps(newborn).minutes, 5);
    assert.equal(gapSummaryText(summarizeGaps(heartbeatGapBars([], 4, null, [], T0))), "No heartbeat history yet");
  });

  test("the registration minute is partial: few heartbeats there are not a gap", () => {
    const bars = heartbeatGapBars(items([0, 1, 4, 4]), 4, new Date(T0 + 60_000 + 50_000).toISOString(), [], T0 + 4 * 60_000);
    assert.deepEqual(
      bars.map((b) => b.why),
      [null, null, null, null],
    );
    assert.equal(summarizeGaps(bars).minutes, 3);
  });

  test("steady heartbeats are 'No gaps'", () => {
    const bars = heartbeatGapBars(items([2, 1, 2, 2]), 2, minute(0), [], T0 + 4 * 60_000);
    assert.equal(gapSummaryText(summarizeGaps(bars)), "No gaps");
  });
});
