// Safe rollouts as pure rules: which clusters a plan leaves out, the ETA, and upgrade windows in
// named time zones (daylight saving time included).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createRolloutSchema, estimateRemaining, planStages, splitPlanTargets } from "@/lib/domain/rollouts";
import {
  allWindowsOpen,
  describeWindows,
  isTimeZone,
  upgradeWindowsSchema,
  windowOpen,
  type WindowPolicy,
} from "@/lib/domain/upgrade-windows";
import { createGroupSchema } from "@/lib/domain/groups";

describe("a rollout plan leaves out NotReady and draining clusters unless told otherwise", () => {
  const clusters = [
    { id: "a", phase: "Active", health: "Ready" as const },
    { id: "b", phase: "Active", health: "NotReady" as const },
    { id: "c", phase: "Draining", health: "Ready" as const },
    { id: "d", phase: "Active", health: "Pending" as const },
    { id: "e", phase: "Deregistration", health: "NotReady" as const },
  ];
  test("by default they are listed as skipped, with the reason, and the stages are planned over the rest", () => {
    const { planned, skipped } = splitPlanTargets(clusters, false);
    assert.deepEqual(
      planned.map((c) => c.id),
      ["a", "d"],
    );
    assert.deepEqual(
      skipped.map((c) => [c.id, c.reason]),
      [
        ["b", "NotReady"],
        ["c", "draining"],
        ["e", "draining"],
      ],
    );
    const stages = planStages(
      planned.map((c) => c.id),
      [
        { name: "canary", clusters: 1 },
        { name: "rest", percent: 100 },
      ],
    );
    assert.deepEqual(
      stages.map((s) => s.clusterIds),
      [["a"], ["d"]],
    );
  });
  test("an explicit choice plans them all in", () => {
    const { planned, skipped } = splitPlanTargets(clusters, true);
    assert.equal(planned.length, 5);
    assert.deepEqual(skipped, []);
  });
  test("the input names exactly one of a selector, a group or cluster ids; the safety switches default off", () => {
    const base = { name: "r", targetVersion: "1.5.0" };
    const ok = createRolloutSchema.parse({ ...base, clusterIds: ["x", "y"] });
    assert.deepEqual([ok.includeUnready, ok.requireApproval], [false, false]);
    assert.equal(createRolloutSchema.safeParse({ ...base, clusterIds: ["x"], selector: "env=prod" }).success, false);
    assert.equal(createRolloutSchema.safeParse(base).success, false);
    assert.equal(createRolloutSchema.safeParse({ ...base, clusterIds: [] }).success, false);
  });
});

describe("the ETA from observed per-cluster time", () => {
  const t = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, s));
  const r = { state: "Running", currentStage: 0, stageCount: 2, maxUnavailable: 2, waitSeconds: 30 };
  test("unknown until a cluster has succeeded", () => {
    assert.equal(estimateRemaining(r, [{ stage: 0, state: "Pending", startedAt: null, finishedAt: null }]), null);
  });
  test("the mean time, in batches of max unavailable, plus the waits between stages", () => {
    const members = [
      { stage: 0, state: "Succeeded", startedAt: t(0), finishedAt: t(40) },
      { stage: 0, state: "Succeeded", startedAt: t(0), finishedAt: t(20) },
      { stage: 0, state: "Upgrading", startedAt: t(40), finishedAt: null },
      { stage: 1, state: "Pending", startedAt: null, finishedAt: null },
      { stage: 1, state: "Pending", startedAt: null, finishedAt: null },
      { stage: 1, state: "Pending", startedAt: null, finishedAt: null },
      { stage: 1, state: "Skipped", startedAt: null, finishedAt: null },
    ];
    // stage 0: 1 left -> 1 batch of 30 s, + 30 s wait; stage 1: 3 left -> 2 batches of 30 s
    assert.deepEqual(estimateRemaining(r, members), { seconds: 30 + 30 + 60, perClusterSeconds: 30, observed: 2 });
    assert.equal(estimateRemaining({ ...r, state: "Completed" }, members), null);
  });
});

describe("upgrade windows in a named time zone", () => {
  const policy = (timeZone: string | null, ...windows: WindowPolicy["windows"] & object): WindowPolicy => ({
    windows,
    timeZone,
  });
  test("no windows means always open; no zone means UTC", () => {
    assert.equal(windowOpen({ windows: null, timeZone: "Europe/Berlin" }, new Date()), true);
    const utc = policy(null, { days: ["Tue"], start: "09:00", end: "10:00" });
    assert.equal(windowOpen(utc, new Date("2026-12-01T09:30:00Z")), true);
    assert.equal(windowOpen(utc, new Date("2026-12-01T10:00:00Z")), false, "the end is exclusive");
  });
  test("wall-clock times in the zone: Tokyo's Tuesday morning is Monday evening in UTC", () => {
    const tokyo = policy("Asia/Tokyo", { days: ["Tue"], start: "02:00", end: "04:00" });
    assert.equal(windowOpen(tokyo, new Date("2026-11-30T18:00:00Z")), true, "Tue 03:00 JST");
    assert.equal(windowOpen(tokyo, new Date("2026-12-01T03:00:00Z")), false, "Tue 03:00 UTC is Tue 12:00 JST");
  });
  test("daylight saving time: the same wall-clock window moves in UTC (Europe/Berlin, spring forward)", () => {
    // 2026-03-29, Sunday: clocks go from 02:00 CET to 03:00 CEST.
    const berlin = policy("Europe/Berlin", { days: ["Sun"], start: "01:00", end: "04:00" });
    assert.equal(windowOpen(berlin, new Date("2026-03-29T00:30:00Z")), true, "01:30 CET");
    assert.equal(windowOpen(berlin, new Date("2026-03-29T01:30:00Z")), true, "03:30 CEST");
    assert.equal(windowOpen(berlin, new Date("2026-03-29T02:00:00Z")), false, "04:00 CEST (a fixed +1 h would say 03:00)");
    // A week earlier (standard time), 02:00 UTC is 03:00 CET: open.
    assert.equal(windowOpen(berlin, new Date("2026-03-22T02:00:00Z")), true);
  });
  test("daylight saving time in New York (fall back): Sat 22:00-23:00 local", () => {
    const ny = policy("America/New_York", { days: ["Sat"], start: "22:00", end: "23:00" });
    // EDT (UTC-4) on 2026-10-31; EST (UTC-5) on 2026-11-07.
    assert.equal(windowOpen(ny, new Date("2026-11-01T02:30:00Z")), true, "Sat 22:30 EDT");
    assert.equal(windowOpen(ny, new Date("2026-11-08T02:30:00Z")), false, "Sat 21:30 EST");
    assert.equal(windowOpen(ny, new Date("2026-11-08T03:30:00Z")), true, "Sat 22:30 EST");
  });
  test("a window past midnight opens on the named day and closes on the next", () => {
    const night = policy("UTC", { days: ["Fri"], start: "22:00", end: "02:00" });
    assert.equal(windowOpen(night, new Date("2026-12-04T23:00:00Z")), true, "Fri 23:00");
    assert.equal(windowOpen(night, new Date("2026-12-05T01:59:00Z")), true, "Sat 01:59");
    assert.equal(windowOpen(night, new Date("2026-12-05T02:00:00Z")), false, "Sat 02:00");
    assert.equal(windowOpen(night, new Date("2026-12-04T01:00:00Z")), false, "Fri 01:00 (Thursday is not named)");
  });
  test("a cluster in several groups upgrades only when all their windows are open", () => {
    const berlinNight = policy("Europe/Berlin", { days: ["Sat"], start: "01:00", end: "05:00" });
    const utcEarly = policy("UTC", { days: ["Sat"], start: "02:00", end: "03:00" });
    assert.equal(allWindowsOpen([berlinNight, utcEarly], new Date("2026-12-05T02:30:00Z")), true, "03:30 Berlin, 02:30 UTC");
    assert.equal(allWindowsOpen([berlinNight, utcEarly], new Date("2026-12-05T01:30:00Z")), false, "UTC's not open yet");
    assert.equal(allWindowsOpen([berlinNight, utcEarly], new Date("2026-12-05T03:30:00Z")), false, "UTC's closed again");
    assert.equal(allWindowsOpen([], new Date()), true);
  });
  test("zones and windows are validated; the group field names the zone", () => {
    assert.equal(isTimeZone("Europe/Berlin"), true);
    assert.equal(isTimeZone("UTC"), true);
    assert.equal(isTimeZone("Mars/Olympus"), false);
    const bad = createGroupSchema.safeParse({ name: "g", selector: "env", upgradeTimeZone: "Mars/Olympus" });
    assert.equal(bad.success, false);
    assert.deepEqual(
      bad.error?.issues.map((i) => i.path.join(".")),
      ["upgradeTimeZone"],
    );
    assert.equal(upgradeWindowsSchema.safeParse([{ days: [], start: "01:00", end: "02:00" }]).success, false);
    assert.equal(upgradeWindowsSchema.safeParse([{ days: ["Mon"], start: "25:00", end: "02:00" }]).success, false);
    assert.equal(upgradeWindowsSchema.safeParse([{ days: ["Mon"], start: "02:00", end: "02:00" }]).success, false);
    assert.equal(upgradeWindowsSchema.safeParse([{ days: ["Mon"], start: "22:00", end: "24:00" }]).success, true);
  });
  test("described for people", () => {
    assert.equal(
      describeWindows(policy("Europe/Berlin", { days: ["Sat", "Sun"], start: "02:00", end: "06:00" })),
      "Sat, Sun 02:00-06:00 (Europe/Berlin)",
    );
    assert.equal(describeWindows({ windows: null, timeZone: null }), "any time");
  });
});
