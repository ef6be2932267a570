import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  clusterReasons,
  factsAsOf,
  isFlapping,
  isProvisioningOverdue,
  matchesEnrollmentFilter,
  matchesHealthFilter,
  sameClusterPeers,
  type ReasonFacts,
} from "@/lib/domain/cluster-reason";

const now = new Date("2026-06-01T12:00:00Z");
const ago = (s: number) => new Date(now.getTime() - s * 1000);
const rules = {
  notReadyThresholdSeconds: 60,
  flappingThresholdPerHour: 4,
  provisioningThresholdMinutes: 10,
  requiredLabels: ["env", "region"],
};
const healthy: ReasonFacts = {
  phase: "Active",
  phaseChangedAt: ago(86_400),
  lastHeartbeatAt: ago(5),
  apiServerHealth: "ok",
  labels: { env: "prod", region: "eu" },
  statusChangesLastHour: 0,
};
const codes = (f: Partial<ReasonFacts>) => clusterReasons({ ...healthy, ...f }, rules, now).map((r) => r.code);

describe("clusterReasons", () => {
  test("a healthy, enrolled cluster with its labels has no reason", () => {
    assert.deepEqual(clusterReasons(healthy, rules, now), []);
  });

  test("no heartbeat past the threshold names when the last one arrived", () => {
    assert.deepEqual(clusterReasons({ ...healthy, lastHeartbeatAt: ago(180) }, rules, now), [
      { code: "noHeartbeat", since: ago(180).toISOString() },
    ]);
    // exactly at the threshold is still fresh (as in the status rule)
    assert.deepEqual(codes({ lastHeartbeatAt: ago(60) }), []);
  });

  test("never heartbeated is pending, not offline", () => {
    assert.deepEqual(codes({ lastHeartbeatAt: null, apiServerHealth: null }), ["pending"]);
  });

  test("API server down or degraded, only while the report is current", () => {
    assert.deepEqual(codes({ apiServerHealth: "down" }), ["apiServerDown"]);
    assert.deepEqual(codes({ apiServerHealth: "degraded" }), ["degraded"]);
    assert.deepEqual(codes({ apiServerHealth: "down", lastHeartbeatAt: ago(600) }), ["noHeartbeat"]);
    assert.deepEqual(codes({ apiServerHealth: "degraded", lastHeartbeatAt: ago(600) }), ["noHeartbeat"]);
  });

  test("flapping is more than the threshold of changes in the hour, with the count", () => {
    assert.deepEqual(codes({ statusChangesLastHour: 4 }), []);
    assert.deepEqual(clusterReasons({ ...healthy, statusChangesLastHour: 5 }, rules, now), [{ code: "flapping", changes: 5 }]);
    assert.equal(isFlapping(5, 4), true);
    assert.equal(isFlapping(4, 4), false);
  });

  test("missing required labels are named, an empty value counts as missing", () => {
    assert.deepEqual(clusterReasons({ ...healthy, labels: { env: "" } }, rules, now), [
      { code: "missingLabels", keys: ["env", "region"] },
    ]);
  });

  test("several reasons at once, most serious first; enrollment is not a reason (it has its own column)", () => {
    assert.deepEqual(codes({ lastHeartbeatAt: ago(300), statusChangesLastHour: 9, labels: {} }), [
      "noHeartbeat",
      "flapping",
      "missingLabels",
    ]);
  });
});

describe("provisioning for longer than the threshold", () => {
  const provisioning = (minutesAgo: number): ReasonFacts => ({
    ...healthy,
    phase: "Provisioning",
    phaseChangedAt: new Date(now.getTime() - minutesAgo * 60_000),
    lastHeartbeatAt: null,
    apiServerHealth: null,
  });

  test("within the threshold a pre-created cluster has no reason: no heartbeat is expected before an agent claims it", () => {
    assert.deepEqual(clusterReasons(provisioning(3), rules, now), []);
    // exactly at the threshold is not over it
    assert.deepEqual(clusterReasons(provisioning(10), rules, now), []);
  });

  test("past the threshold it says since when, and the threshold it passed", () => {
    assert.deepEqual(clusterReasons(provisioning(23), rules, now), [
      { code: "provisioningOverdue", since: new Date(now.getTime() - 23 * 60_000).toISOString(), thresholdMinutes: 10 },
    ]);
    assert.deepEqual(codes({ ...provisioning(23), labels: {} }), ["provisioningOverdue", "missingLabels"]);
    assert.deepEqual(clusterReasons(provisioning(23), { ...rules, provisioningThresholdMinutes: 30 }, now), []);
  });

  test("only the Provisioning phase counts, however long ago another phase began", () => {
    const facts = (phase: string, ms: number) => ({ phase, phaseChangedAt: new Date(now.getTime() - ms) });
    assert.equal(isProvisioningOverdue(facts("Provisioning", 600_001), 10, now), true);
    assert.equal(isProvisioningOverdue(facts("Provisioning", 600_000), 10, now), false);
    for (const phase of ["Registration", "Active", "Upgrading", "Draining", "Deregistration"])
      assert.equal(isProvisioningOverdue(facts(phase, 86_400_000), 10, now), false, phase);
    assert.deepEqual(codes({ phase: "Registration", phaseChangedAt: ago(86_400), lastHeartbeatAt: null }), ["pending"]);
  });
});

describe("list filters", () => {
  test("health filters read heartbeat health, lifecycle phases aside", () => {
    const draining = { ...healthy, phase: "Draining" };
    assert.equal(matchesHealthFilter("ready", draining, rules, now), true);
    assert.equal(matchesHealthFilter("notReady", { ...healthy, lastHeartbeatAt: ago(61) }, rules, now), true);
    assert.equal(matchesHealthFilter("notReady", { ...healthy, apiServerHealth: "down" }, rules, now), true);
    assert.equal(matchesHealthFilter("pending", { ...healthy, lastHeartbeatAt: null }, rules, now), true);
    assert.equal(matchesHealthFilter("pending", healthy, rules, now), false);
  });

  test("degraded needs a current report; flapping follows the setting", () => {
    assert.equal(matchesHealthFilter("degraded", { ...healthy, apiServerHealth: "degraded" }, rules, now), true);
    assert.equal(
      matchesHealthFilter("degraded", { ...healthy, apiServerHealth: "degraded", lastHeartbeatAt: ago(61) }, rules, now),
      false,
    );
    assert.equal(matchesHealthFilter("flapping", { ...healthy, statusChangesLastHour: 3 }, rules, now), false);
    assert.equal(
      matchesHealthFilter("flapping", { ...healthy, statusChangesLastHour: 3 }, { ...rules, flappingThresholdPerHour: 2 }, now),
      true,
    );
  });

  test("enrollment: enrolled or blocked", () => {
    assert.equal(matchesEnrollmentFilter("enrolled", { enrolledAt: ago(3600) }), true);
    assert.equal(matchesEnrollmentFilter("blocked", { enrolledAt: ago(3600) }), false);
    assert.equal(matchesEnrollmentFilter("blocked", { enrolledAt: null }), true);
  });
});

describe("factsAsOf", () => {
  test("current facts have no 'as of'; stale or NotReady ones are as of the last heartbeat", () => {
    assert.equal(factsAsOf(healthy, now, 60), null);
    assert.equal(factsAsOf({ ...healthy, lastHeartbeatAt: null }, now, 60), null);
    assert.deepEqual(factsAsOf({ ...healthy, lastHeartbeatAt: ago(960) }, now, 60), ago(960));
    assert.deepEqual(factsAsOf({ ...healthy, apiServerHealth: "down" }, now, 60), ago(5));
  });
});

describe("sameClusterPeers: one Kubernetes cluster registered twice", () => {
  const c = (id: string, name: string, clusterUid: string | null, phase = "Active") => ({ id, name, clusterUid, phase });

  test("every active cluster sharing a UID names the others, by name; none and unique UIDs name nobody", () => {
    const peers = sameClusterPeers([
      c("1", "b-copy", "u1"),
      c("2", "a-orig", "u1", "Registration"),
      c("3", "c-third", "u1", "Draining"),
      c("4", "alone", "u2"),
      c("5", "no-uid", null),
      c("6", "also-no-uid", null),
    ]);
    assert.deepEqual(Object.fromEntries(peers), {
      "1": [
        { id: "2", name: "a-orig" },
        { id: "3", name: "c-third" },
      ],
      "2": [
        { id: "1", name: "b-copy" },
        { id: "3", name: "c-third" },
      ],
      "3": [
        { id: "2", name: "a-orig" },
        { id: "1", name: "b-copy" },
      ],
    });
  });

  test("a cluster in Deregistration neither flags nor is flagged", () => {
    assert.equal(sameClusterPeers([c("1", "a", "u1"), c("2", "b", "u1", "Deregistration")]).size, 0);
  });

  test("the reason follows the health reason and names the others", () => {
    const reasons = clusterReasons(
      { ...healthy, apiServerHealth: "down", sameClusterAs: [{ id: "2", name: "a-orig" }] },
      rules,
      now,
    );
    assert.deepEqual(reasons, [{ code: "apiServerDown" }, { code: "sameCluster", clusters: [{ id: "2", name: "a-orig" }] }]);
  });
});
