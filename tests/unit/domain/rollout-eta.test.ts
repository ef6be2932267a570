// What a planned rollout will do, as the rollout form and its start confirmation both say it: the
// clusters it upgrades and about how long that takes, before it starts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AGENT_RESTART_SECONDS,
  ROLLOUT_TICK_SECONDS,
  clustersToUpgrade,
  estimateRollout,
  upgradeSecondsPerCluster,
} from "@/lib/domain/rollout-eta";

describe("clusters a plan upgrades", () => {
  test("the planned ones less those already on the target version (skipped ones are not planned)", () => {
    assert.equal(clustersToUpgrade({ planned: 3, alreadyOnTarget: 0 }), 3);
    assert.equal(clustersToUpgrade({ planned: 10, alreadyOnTarget: 4 }), 6);
    assert.equal(clustersToUpgrade({ planned: 2, alreadyOnTarget: 2 }), 0);
  });
});

describe("a rollout's time before it starts", () => {
  test("one cluster: a rollout tick, two heartbeats and an agent restart", () => {
    assert.equal(upgradeSecondsPerCluster(15), ROLLOUT_TICK_SECONDS + 30 + AGENT_RESTART_SECONDS);
    assert.equal(upgradeSecondsPerCluster(60), ROLLOUT_TICK_SECONDS + 120 + AGENT_RESTART_SECONDS);
  });

  test("stages in batches of max unavailable, with the wait between consecutive stages", () => {
    const per = upgradeSecondsPerCluster(15);
    // canary 1, then 9 more 3 at a time: 1 + 3 batches, one wait of 60 s.
    const eta = estimateRollout({
      stages: [{ upgrades: 1 }, { upgrades: 9 }],
      maxUnavailable: 3,
      waitSeconds: 60,
      heartbeatIntervalSeconds: 15,
    });
    assert.deepEqual(eta, { seconds: 4 * per + 60, perClusterSeconds: per, batches: 4, waitsSeconds: 60 });
    // A partial last batch still takes a whole one.
    assert.equal(
      estimateRollout({ stages: [{ upgrades: 10 }], maxUnavailable: 3, waitSeconds: 60, heartbeatIntervalSeconds: 15 }).batches,
      4,
    );
  });

  test("a stage with nothing to upgrade costs no batch but still waits; more at once is faster", () => {
    const stages = [{ upgrades: 0 }, { upgrades: 4 }, { upgrades: 4 }];
    const one = estimateRollout({ stages, maxUnavailable: 1, waitSeconds: 30, heartbeatIntervalSeconds: 10 });
    const four = estimateRollout({ stages, maxUnavailable: 4, waitSeconds: 30, heartbeatIntervalSeconds: 10 });
    assert.equal(one.batches, 8);
    assert.equal(four.batches, 2);
    assert.equal(one.waitsSeconds, 60);
    assert.ok(four.seconds < one.seconds);
    assert.equal(four.seconds, 2 * upgradeSecondsPerCluster(10) + 60);
  });

  test("nothing to upgrade takes no time beyond the waits; nonsense inputs do not go negative", () => {
    assert.equal(
      estimateRollout({ stages: [{ upgrades: 0 }], maxUnavailable: 5, waitSeconds: 60, heartbeatIntervalSeconds: 15 }).seconds,
      0,
    );
    const odd = estimateRollout({ stages: [{ upgrades: 2 }], maxUnavailable: 0, waitSeconds: -5, heartbeatIntervalSeconds: 15 });
    assert.equal(odd.batches, 2);
    assert.equal(odd.waitsSeconds, 0);
  });
});
