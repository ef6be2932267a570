import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { snoozeActive, snoozeUntilProblem, snoozeView } from "@/lib/domain/cluster-snooze";

const now = new Date("2026-12-06T09:00:00Z");
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
const facts = { snoozedUntil: at(60), snoozedAt: at(-5), statusChangedAt: at(-30), phaseChangedAt: at(-600) };

describe("snoozeActive", () => {
  it("holds until its end for the state it was given in", () => {
    assert.equal(snoozeActive(facts, now), true);
    assert.equal(snoozeActive(facts, at(60)), false, "ended at its time");
    assert.equal(snoozeActive({ ...facts, snoozedUntil: null, snoozedAt: null }, now), false);
  });

  it("ends as soon as a status or a phase is recorded after it", () => {
    assert.equal(snoozeActive({ ...facts, statusChangedAt: at(-1) }, now), false);
    assert.equal(snoozeActive({ ...facts, phaseChangedAt: at(-1) }, now), false);
  });
});

describe("snoozeUntilProblem", () => {
  it("takes an end in the future, at most 30 days ahead", () => {
    assert.equal(snoozeUntilProblem(at(60), now), null);
    assert.match(snoozeUntilProblem(at(-1), now)!, /in the future/);
    assert.match(snoozeUntilProblem(at(31 * 24 * 60), now)!, /at most 30 days/);
  });
});

describe("snoozeView", () => {
  it("shows a snooze in force and nothing once it ended", () => {
    const row = { ...facts, snoozeReason: "vendor case 4711", snoozeOwner: "team-db", snoozedBy: "ops@example.com" };
    assert.deepEqual(snoozeView(row, now), {
      until: at(60).toISOString(),
      at: at(-5).toISOString(),
      reason: "vendor case 4711",
      owner: "team-db",
      by: "ops@example.com",
    });
    assert.equal(snoozeView({ ...row, statusChangedAt: at(-1) }, now), null);
  });
});
