import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatSelector, matchesSelector, parseSelector, SelectorError } from "@/lib/domain/selector";
import {
  CLUSTER_STATUSES,
  clusterStatus,
  healthStatus,
  LIFECYCLE_PHASES,
  STATUS_RULES,
  statusWithHealth,
  transitionReason,
} from "@/lib/domain/status";
import { blockingItems, enrollmentChecklist, type EnrollmentFacts } from "@/lib/domain/enrollment";
import { labelKeyProblem, labelValueProblem, missingRequiredLabels } from "@/lib/domain/labels";
import { labelOutsideScope, mergeFixedLabels, tokenStatus } from "@/lib/domain/tokens";
import { hasRole } from "@/lib/domain/roles";

describe("label selectors (kubectl syntax)", () => {
  test("parses equality, sets, existence and negation", () => {
    assert.deepEqual(parseSelector("env=prod,region in (eu, us),!legacy,tier,team!=core,zone notin (a)"), [
      { key: "env", op: "in", values: ["prod"] },
      { key: "region", op: "in", values: ["eu", "us"] },
      { key: "legacy", op: "!exists" },
      { key: "tier", op: "exists" },
      { key: "team", op: "notin", values: ["core"] },
      { key: "zone", op: "notin", values: ["a"] },
    ]);
    assert.deepEqual(parseSelector("  "), []);
    assert.deepEqual(parseSelector("app.kubernetes.io/name==web"), [
      { key: "app.kubernetes.io/name", op: "in", values: ["web"] },
    ]);
  });

  test("rejects malformed selectors with a message", () => {
    for (const bad of ["env=prod,,x", "region in (eu", "region in ()", "bad key=1", "env=pr od", "-x=1"]) {
      assert.throws(() => parseSelector(bad), SelectorError, bad);
    }
  });

  test("matches like Kubernetes: != and notin also match clusters without the key", () => {
    const labels = { env: "prod", region: "eu" };
    assert.equal(matchesSelector(labels, parseSelector("env=prod,region in (eu,us)")), true);
    assert.equal(matchesSelector(labels, parseSelector("env=dev")), false);
    assert.equal(matchesSelector(labels, parseSelector("team!=core")), true);
    assert.equal(matchesSelector(labels, parseSelector("!env")), false);
    assert.equal(matchesSelector(labels, parseSelector("region notin (eu)")), false);
    assert.equal(matchesSelector(labels, []), true);
    assert.equal(formatSelector(parseSelector("env=prod,region in (eu,us),!legacy")), "env=prod,region in (eu,us),!legacy");
  });
});

describe("status from facts", () => {
  const now = new Date("2026-11-29T12:00:00Z");
  const ago = (s: number) => new Date(now.getTime() - s * 1000);
  test("the rule names every status once, and only those", () => {
    assert.deepEqual(STATUS_RULES.map((r) => r.status).sort(), [...CLUSTER_STATUSES].sort());
  });
  test("Pending before the first heartbeat, Ready within the threshold, NotReady after it or when apiServer is down", () => {
    assert.equal(healthStatus({ phase: "Active", lastHeartbeatAt: null, apiServerHealth: null }, now, 60), "Pending");
    assert.equal(healthStatus({ phase: "Active", lastHeartbeatAt: ago(60), apiServerHealth: "ok" }, now, 60), "Ready");
    assert.equal(healthStatus({ phase: "Active", lastHeartbeatAt: ago(61), apiServerHealth: "ok" }, now, 60), "NotReady");
    assert.equal(healthStatus({ phase: "Active", lastHeartbeatAt: ago(1), apiServerHealth: "degraded" }, now, 60), "Ready");
    assert.equal(healthStatus({ phase: "Active", lastHeartbeatAt: ago(1), apiServerHealth: "down" }, now, 60), "NotReady");
  });
  test("lifecycle phases override", () => {
    assert.equal(clusterStatus({ phase: "Draining", lastHeartbeatAt: ago(1), apiServerHealth: "ok" }, now, 60), "Draining");
    assert.equal(
      clusterStatus({ phase: "Deregistration", lastHeartbeatAt: null, apiServerHealth: null }, now, 60),
      "Deregistering",
    );
  });
  test("the status after a health transition is the table's answer for the cluster's phase", () => {
    const healthFacts = [
      { lastHeartbeatAt: null, apiServerHealth: null },
      { lastHeartbeatAt: ago(1), apiServerHealth: "ok" },
      { lastHeartbeatAt: ago(1), apiServerHealth: "down" },
      { lastHeartbeatAt: ago(600), apiServerHealth: "ok" },
    ];
    for (const phase of [...LIFECYCLE_PHASES, "SomethingNew"]) {
      for (const facts of healthFacts) {
        const f = { phase, ...facts };
        assert.equal(statusWithHealth(phase, healthStatus(f, now, 60)), clusterStatus(f, now, 60), JSON.stringify(f));
      }
    }
  });
  test("transition reasons", () => {
    const f = { phase: "Active", lastHeartbeatAt: ago(90), apiServerHealth: "ok" };
    assert.equal(transitionReason("Pending", "Ready", f, 60), "first heartbeat");
    assert.match(transitionReason("Ready", "NotReady", f, 60), /threshold/);
    assert.match(transitionReason("Ready", "NotReady", { ...f, apiServerHealth: "down" }, 60), /apiServer down/);
    assert.match(transitionReason("NotReady", "Ready", f, 60), /recovered/);
  });
});

describe("enrollment checklist", () => {
  const now = new Date("2026-11-29T12:00:00Z");
  const base = {
    registeredAt: new Date("2026-11-01T00:00:00Z"),
    phase: "Active",
    lastHeartbeatAt: new Date(now.getTime() - 5000),
    apiServerHealth: "ok",
    labels: { env: "prod", region: "eu" } as Record<string, string>,
    groupCount: 1,
    fleetGroupCount: 2,
    desiredPolicyRevision: "baseline:2",
    appliedPolicyRevision: "baseline:2",
    logsReporting: true,
    metricsReporting: true,
  };
  test("complete only when every item passes", () => {
    const items = enrollmentChecklist(base, ["env", "region"], now, 60);
    assert.equal(items.length, 8);
    assert.ok(
      items.every((i) => i.ok),
      JSON.stringify(items.filter((i) => !i.ok)),
    );
  });
  test("each failing fact fails its own item, with a reason", () => {
    const cases: [Partial<typeof base>, string][] = [
      [{ labels: { env: "prod" } }, "labels"],
      [{ groupCount: 0 }, "groups"],
      [{ appliedPolicyRevision: "baseline:1" }, "policies"],
      [{ logsReporting: false }, "logs"],
      [{ metricsReporting: false }, "metrics"],
      [{ lastHeartbeatAt: new Date(now.getTime() - 120_000) }, "heartbeat"],
    ];
    for (const [over, key] of cases) {
      const item = enrollmentChecklist({ ...base, ...over }, ["env", "region"], now, 60).find((i) => i.key === key)!;
      assert.equal(item.state, "fail", key);
      assert.ok(item.reason.length > 5);
    }
  });
  test("group membership is not applicable until the fleet has a group, then it applies", () => {
    const groups = (over: Partial<typeof base>) =>
      enrollmentChecklist({ ...base, ...over }, ["env", "region"], now, 60).find((i) => i.key === "groups")!;
    const fresh = groups({ groupCount: 0, fleetGroupCount: 0 });
    assert.equal(fresh.state, "pass");
    assert.match(fresh.reason, /not applicable/);
    assert.ok(enrollmentChecklist({ ...base, groupCount: 0, fleetGroupCount: 0 }, ["env", "region"], now, 60).every((i) => i.ok));
    assert.equal(groups({ groupCount: 0, fleetGroupCount: 1 }).state, "fail");
    assert.equal(groups({ groupCount: 1, fleetGroupCount: 1 }).state, "pass");
  });
  test("no heartbeat yet is pending, not failing", () => {
    const items = enrollmentChecklist(
      { ...base, lastHeartbeatAt: null, logsReporting: null, metricsReporting: null },
      [],
      now,
      60,
    );
    for (const key of ["ready", "heartbeat", "logs", "metrics"])
      assert.equal(items.find((i) => i.key === key)!.state, "pending", key);
  });
  test("a cluster whose heartbeat stopped is blocked on the heartbeat alone, not on Ready too", () => {
    const blockedOn = (over: Partial<EnrollmentFacts>) =>
      blockingItems(
        enrollmentChecklist({ ...base, ...over }, ["env", "region"], now, 60)
          .filter((i) => !i.ok)
          .map((i) => i.key),
      );
    assert.deepEqual(blockedOn({ lastHeartbeatAt: new Date(now.getTime() - 120_000) }), ["heartbeat"]);
    assert.deepEqual(blockedOn({ lastHeartbeatAt: null, logsReporting: null, metricsReporting: null }), [
      "heartbeat",
      "logs",
      "metrics",
    ]);
    // Heartbeating but not Ready: Ready is the cause.
    assert.deepEqual(blockedOn({ apiServerHealth: "down" }), ["ready"]);
  });
  test("heartbeats whose logs and metrics are not read yet are pending, and say so", () => {
    const items = enrollmentChecklist({ ...base, logsReporting: null, metricsReporting: null }, [], now, 60);
    for (const key of ["logs", "metrics"]) {
      const item = items.find((i) => i.key === key)!;
      assert.deepEqual([item.state, item.reason], ["pending", "not yet read by the agent"], key);
    }
  });
});

describe("labels, tokens, roles", () => {
  test("Kubernetes label syntax", () => {
    assert.equal(labelKeyProblem("app.kubernetes.io/name"), null);
    assert.equal(labelKeyProblem("env"), null);
    assert.notEqual(labelKeyProblem("-env"), null);
    assert.notEqual(labelKeyProblem("a".repeat(64)), null);
    assert.notEqual(labelKeyProblem("Bad_Prefix/x"), null);
    assert.equal(labelValueProblem(""), null);
    assert.notEqual(labelValueProblem("has space"), null);
    assert.deepEqual(missingRequiredLabels({ env: "prod", region: "" }, ["env", "region", "team"]), ["region", "team"]);
  });
  test("token scope, fixed labels and status", () => {
    assert.equal(labelOutsideScope({ env: "prod" }, null), null);
    assert.deepEqual(labelOutsideScope({ env: "prod", region: "us" }, { env: "*", region: ["eu"] }), {
      key: "region",
      value: "us",
    });
    assert.deepEqual(labelOutsideScope({ team: "x" }, { env: "*" }), { key: "team", value: "x" });
    assert.deepEqual(mergeFixedLabels({ region: "eu" }, { env: "prod" }), {
      labels: { region: "eu", env: "prod" },
      conflict: null,
    });
    assert.equal(mergeFixedLabels({ env: "dev" }, { env: "prod" }).conflict, "env");
    const now = new Date();
    const t = { revokedAt: null, expiresAt: new Date(now.getTime() + 1000), usedClusters: 0, maxClusters: 1 };
    assert.equal(tokenStatus(t, now), "active");
    assert.equal(tokenStatus({ ...t, usedClusters: 1 }, now), "exhausted");
    assert.equal(tokenStatus({ ...t, expiresAt: now }, now), "expired");
    assert.equal(tokenStatus({ ...t, revokedAt: now }, now), "revoked");
  });
  test("roles are ordered admin > operator > viewer", () => {
    assert.equal(hasRole("admin", "operator"), true);
    assert.equal(hasRole("operator", "admin"), false);
    assert.equal(hasRole("viewer", "viewer"), true);
  });
});
