import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compare, satisfies } from "@/lib/domain/semver";
import { shippedMatrix, versionFlags, agentAccepted, compatibilityMatrixSchema } from "@/lib/domain/compatibility";
import { BUILD_AGENT_VERSION, BUILD_VERSION } from "@/lib/build-version";

const SHIPPED_MATRIX = shippedMatrix({ version: BUILD_VERSION, agentVersion: BUILD_AGENT_VERSION });
import { planStages } from "@/lib/domain/rollouts";
import { windowOpen } from "@/lib/domain/upgrade-windows";
import { desiredRevision } from "@/lib/domain/policies";

describe("semantic versions", () => {
  test("compare orders by major, minor, patch; a pre-release comes first", () => {
    assert.ok(compare("1.4.0", "1.10.0") < 0);
    assert.ok(compare("2.0.0", "1.99.99") > 0);
    assert.equal(compare("v1.30.2", "1.30.2"), 0);
    assert.ok(compare("1.5.0-rc.1", "1.5.0") < 0);
    assert.throws(() => compare("1.4", "1.4.0"));
  });
  test("ranges: comparators, x wildcards, AND and OR", () => {
    assert.equal(satisfies("1.4.1", ">=1.2.0 <2.0.0"), true);
    assert.equal(satisfies("2.0.0", ">=1.2.0 <2.0.0"), false);
    assert.equal(satisfies("1.4.9", "1.4.x"), true);
    assert.equal(satisfies("1.5.0", "1.4.x"), false);
    assert.equal(satisfies("1.30.2", "1.28.x || 1.30.x"), true);
    assert.equal(satisfies("not-a-version", ">=0.0.0"), false);
    assert.throws(() => satisfies("1.0.0", "~>1.0"));
  });
});

describe("compatibility matrix", () => {
  test("the shipped matrix is valid", () => {
    assert.ok(compatibilityMatrixSchema.safeParse(SHIPPED_MATRIX).success);
  });
  test("the shipped matrix recommends this build's own agent, so a fleet on it is not outdated", () => {
    assert.equal(SHIPPED_MATRIX.recommendedAgentVersion, BUILD_AGENT_VERSION);
    assert.equal(SHIPPED_MATRIX.controlPlaneVersion, BUILD_VERSION);
    const row = SHIPPED_MATRIX.agents.find((a) => satisfies(BUILD_AGENT_VERSION, a.agentVersions));
    assert.ok(row, "a row covers this build's agent");
    assert.ok(agentAccepted(SHIPPED_MATRIX, BUILD_AGENT_VERSION));
    assert.deepEqual(versionFlags(SHIPPED_MATRIX, BUILD_AGENT_VERSION, "1.30.2"), []);
  });
  test("flags incompatible agents, outdated agents and unsupported Kubernetes", () => {
    const m = {
      ...SHIPPED_MATRIX,
      acceptedAgentVersions: ">=1.2.0 <2.0.0",
      recommendedAgentVersion: "1.5.0",
      agents: [
        { agentVersions: "1.4.x", kubernetes: ">=1.28.0 <1.32.0" },
        { agentVersions: "1.5.x", kubernetes: ">=1.29.0 <1.33.0" },
      ],
    };
    assert.deepEqual(versionFlags(m, "1.5.0", "1.30.2"), []);
    assert.deepEqual(versionFlags(m, "1.4.1", "1.30.2"), ["outdated"]);
    assert.deepEqual(versionFlags(m, "1.4.1", "1.33.0"), ["outdated", "unsupported-kubernetes"]);
    assert.deepEqual(versionFlags(m, "0.9.0", "1.30.0"), ["incompatible", "unsupported-kubernetes"]);
    assert.equal(agentAccepted(m, "2.1.0"), false);
    assert.deepEqual(versionFlags(m, null, null), []);
  });
});

describe("rollout planning", () => {
  const ids = Array.from({ length: 10 }, (_, i) => `c${i}`);
  test("a canary of N, then batches by percentage, the last stage takes the rest", () => {
    const plan = planStages(ids, [
      { name: "canary", clusters: 1 },
      { name: "25%", percent: 25 },
      { name: "rest", percent: 100 },
    ]);
    assert.deepEqual(
      plan.map((p) => [p.name, p.clusterIds.length]),
      [
        ["canary", 1],
        ["25%", 3],
        ["rest", 6],
      ],
    );
    assert.deepEqual(
      plan.flatMap((p) => p.clusterIds),
      ids,
      "every cluster exactly once, in order",
    );
  });
  test("stages that would be empty are dropped; percentages round up to at least one", () => {
    assert.deepEqual(
      planStages(
        ["a"],
        [
          { name: "canary", clusters: 2 },
          { name: "rest", percent: 100 },
        ],
      ).map((p) => p.clusterIds),
      [["a"]],
    );
    assert.deepEqual(
      planStages(
        ["a", "b", "c"],
        [
          { name: "1%", percent: 1 },
          { name: "rest", percent: 50 },
        ],
      ).map((p) => p.clusterIds.length),
      [1, 2],
    );
  });
  test("upgrade windows are UTC day and time ranges; none means always", () => {
    const sat3am = new Date("2026-11-28T03:00:00Z");
    const w = { windows: [{ days: ["Sat" as const], start: "02:00", end: "06:00" }], timeZone: null };
    assert.equal(windowOpen(w, sat3am), true);
    assert.equal(windowOpen(w, new Date("2026-11-28T06:00:00Z")), false);
    assert.equal(windowOpen(w, new Date("2026-11-29T03:00:00Z")), false);
    assert.equal(windowOpen({ windows: [], timeZone: null }, sat3am), true);
  });
});

describe("desired policy revision", () => {
  test("every policy targeting one of the cluster's groups, sorted, or null", () => {
    const policies = [
      { name: "network", revision: 2, selectors: ["env=prod"] },
      { name: "baseline", revision: 5, selectors: ["region in (eu)", "env=dev"] },
      { name: "gpu", revision: 1, selectors: [] },
    ];
    assert.equal(desiredRevision({ env: "prod", region: "eu" }, policies), "baseline:5,network:2");
    assert.equal(desiredRevision({ env: "staging" }, policies), null);
  });
});
