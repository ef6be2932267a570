import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { nearestRank, PROVISIONING_OBJECTIVE_MINUTES, provisioningTimes } from "@/lib/domain/provisioning-time";
import { DEFAULT_SETTINGS, settingsPatchSchema } from "@/lib/domain/settings";

const MIN = 60_000;

describe("provisioning times", () => {
  test("nothing registered: no figures, not zeros", () => {
    assert.deepEqual(provisioningTimes([]), { registered: 0, p50Ms: null, p90Ms: null, maxMs: null, withinObjective: 0 });
  });

  test("nearest rank: every figure is a measured time", () => {
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    assert.equal(nearestRank(ten, 0.5), 5);
    assert.equal(nearestRank(ten, 0.9), 9);
    assert.equal(nearestRank(ten, 1), 10);
    assert.equal(nearestRank([7], 0.5), 7);
    assert.equal(nearestRank([7], 0.9), 7);
    assert.equal(nearestRank([1, 2], 0.5), 1);
    assert.equal(nearestRank([1, 2], 0.9), 2);
    assert.equal(nearestRank([], 0.5), null);
  });

  test("median, 90th percentile and longest, in any input order; under the objective is strictly under", () => {
    const t = provisioningTimes([12 * MIN, 4 * MIN, 10 * MIN, 6 * MIN, 9 * MIN]);
    assert.deepEqual(t, { registered: 5, p50Ms: 9 * MIN, p90Ms: 12 * MIN, maxMs: 12 * MIN, withinObjective: 3 });
    assert.equal(provisioningTimes([10 * MIN - 1]).withinObjective, 1);
    assert.equal(provisioningTimes([10 * MIN], 10).withinObjective, 0);
    assert.equal(provisioningTimes([10 * MIN], 11).withinObjective, 1);
  });

  test("a negative time (a clock moved back) counts as an instant registration", () => {
    assert.deepEqual(provisioningTimes([-5_000]), { registered: 1, p50Ms: 0, p90Ms: 0, maxMs: 0, withinObjective: 1 });
  });
});

describe("the provisioning threshold setting", () => {
  test("defaults to the objective, and takes whole minutes from 1 to a day", () => {
    assert.equal(DEFAULT_SETTINGS.provisioningThresholdMinutes, PROVISIONING_OBJECTIVE_MINUTES);
    for (const ok of [1, 10, 1440])
      assert.ok(settingsPatchSchema.safeParse({ provisioningThresholdMinutes: ok }).success, String(ok));
    for (const bad of [0, 1441, 2.5, "10"]) {
      const r = settingsPatchSchema.safeParse({ provisioningThresholdMinutes: bad });
      assert.ok(!r.success, String(bad));
      assert.match(r.error.issues[0]!.message, /^Provisioning threshold \(minutes\) must be /);
    }
  });
});
