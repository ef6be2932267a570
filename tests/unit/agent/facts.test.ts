import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { seededRandom } from "@/lib/agent/clock";
import { AckTracker, directiveParam, parseDirectives } from "@/lib/agent/directives";
import { nodePool, SimulatedCluster, UPGRADE_STEPS } from "@/lib/agent/simulator/simulated-cluster";

function cluster() {
  return new SimulatedCluster(
    {
      agentVersion: "1.4.0",
      kubernetesVersion: "1.30.2",
      nodePools: [nodePool("system", "m5.large", 3, "1.30.2"), nodePool("workers", "c6i.2xlarge", 7, "1.30.2")],
      workloads: { pods: 240, namespaces: 12 },
    },
    seededRandom(1),
  );
}

describe("simulated cluster facts", () => {
  test("node pool capacity follows the instance type", () => {
    const p = nodePool("w", "c6i.2xlarge", 7, "1.30.2");
    assert.deepEqual({ cpu: p.cpuCores, mem: p.memoryGiB, ready: p.readyNodes }, { cpu: 56, mem: 112, ready: 7 });
    const r = cluster().report();
    assert.equal(r.nodePools.length, 2);
    assert.equal(r.health.apiServer, "ok");
  });

  test("drain: pods fall monotonically to 0 within a few heartbeats", () => {
    const c = cluster();
    c.startDrain();
    const pods = [c.report().workloads.pods];
    let complete = 0;
    for (let i = 0; i < 8; i++) {
      complete += c.tick().filter((x) => x.kind === "drain-complete").length;
      pods.push(c.report().workloads.pods);
    }
    for (let i = 1; i < pods.length; i++) assert.ok(pods[i]! < pods[i - 1]! || pods[i] === 0, pods.join(","));
    assert.equal(pods.at(-1), 0);
    assert.ok(pods.indexOf(0) <= 7, "a few heartbeats, not dozens");
    assert.equal(complete, 1, "drain-complete reported once");
    assert.equal(c.report().workloads.namespaces, 12);
  });

  test("without a drain pods only drift around their base", () => {
    const c = cluster();
    for (let i = 0; i < 50; i++) {
      c.tick();
      const pods = c.report().workloads.pods;
      assert.ok(pods > 200 && pods < 280, String(pods));
    }
  });

  test("upgrade: the new agentVersion appears after a couple of heartbeats", () => {
    const c = cluster();
    c.startUpgrade({ agentVersion: "1.5.0" });
    assert.equal(UPGRADE_STEPS, 2);
    assert.deepEqual(c.tick(), []);
    assert.equal(c.report().agentVersion, "1.4.0", "still upgrading");
    assert.deepEqual(c.upgrading, { agentVersion: "1.5.0" });
    assert.deepEqual(c.tick(), [{ kind: "upgrade-complete", agentVersion: "1.5.0" }]);
    assert.equal(c.report().agentVersion, "1.5.0");
    assert.equal(c.upgrading, null);
  });

  test("a Kubernetes upgrade also moves the kubelets", () => {
    const c = cluster();
    c.startUpgrade({ kubernetesVersion: "1.31.1" }, 1);
    c.tick();
    const r = c.report();
    assert.equal(r.kubernetesVersion, "1.31.1");
    assert.ok(r.nodePools.every((p) => p.kubeletVersion === "1.31.1"));
    assert.equal(r.agentVersion, "1.4.0");
  });

  test("drainNodePool: nodeCount and readyNodes fall to 0, the pool is reported empty once, then dropped", () => {
    const c = cluster();
    assert.equal(c.startNodePoolDrain("nope"), false);
    assert.equal(c.startNodePoolDrain("workers"), true);
    const history: Array<{ nodes: number; ready: number; cpu: number } | null> = [];
    let removed = 0;
    for (let i = 0; i < 6; i++) {
      removed += c.tick().filter((x) => x.kind === "pool-removed").length;
      const p = c.report().nodePools.find((x) => x.name === "workers");
      history.push(p ? { nodes: p.nodeCount, ready: p.readyNodes, cpu: p.cpuCores } : null);
    }
    // 7 nodes, a third (rounded up: 3) per heartbeat: 4, 1, 0, then gone.
    assert.deepEqual(history.slice(0, 4), [
      { nodes: 4, ready: 4, cpu: 32 },
      { nodes: 1, ready: 1, cpu: 8 },
      { nodes: 0, ready: 0, cpu: 0 },
      null,
    ]);
    assert.equal(removed, 1);
    assert.deepEqual(
      c.report().nodePools.map((p) => p.name),
      ["system"],
    );
  });

  test("degraded health: mostly degraded, sometimes down, never ok", () => {
    const c = cluster();
    c.setHealthMode("degraded");
    assert.equal(c.report().health.apiServer, "degraded");
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      c.tick();
      seen.add(c.report().health.apiServer);
    }
    assert.deepEqual([...seen].sort(), ["degraded", "down"]);
  });

  test("report() is a copy: callers cannot mutate the simulation", () => {
    const c = cluster();
    c.report().nodePools[0]!.nodeCount = 99;
    assert.equal(c.report().nodePools[0]!.nodeCount, 3);
  });
});

describe("directive acks", () => {
  test("parses only well-formed directives; parameters from payload or top level", () => {
    const ds = parseDirectives([
      { id: "a", type: "upgrade", payload: { version: "1.5.0" } },
      { id: 3, type: "x" },
      null,
      { id: "b", type: "drainNodePool", nodePool: "gpu" },
    ]);
    assert.deepEqual(
      ds.map((d) => d.id),
      ["a", "b"],
    );
    assert.equal(directiveParam(ds[0]!, "version"), "1.5.0");
    assert.equal(directiveParam(ds[1]!, "nodePool"), "gpu");
    assert.deepEqual(parseDirectives("nope"), []);
  });

  test("each directive is acted on once and acked until the server stops sending it", () => {
    const t = new AckTracker();
    const d1 = { id: "d1", type: "drain" };
    const d2 = { id: "d2", type: "upgrade" };
    assert.deepEqual(t.observe([d1], 0), [d1]);
    assert.deepEqual(t.acks(0), ["d1"]);
    // The ack got lost: the server repeats d1 and adds d2.
    assert.deepEqual(t.observe([d1, d2], 1), [d2], "d1 is not applied twice");
    assert.deepEqual(t.acks(1).sort(), ["d1", "d2"]);
    // Server dropped d1: stop acking it.
    assert.deepEqual(t.observe([d2], 2), []);
    assert.deepEqual(t.acks(2), ["d2"]);
    assert.deepEqual(t.observe([], 3), []);
    assert.deepEqual(t.acks(3), []);
    assert.equal(t.pendingCount, 0);
    // Re-sent after being dropped: acked again (at once), not re-applied.
    assert.deepEqual(t.observe([d1], 4), []);
    assert.deepEqual(t.acks(4), ["d1"]);
  });

  test("late acks wait for the delay; the action does not", () => {
    const t = new AckTracker(10_000);
    assert.equal(t.observe([{ id: "x", type: "drain" }], 1_000).length, 1);
    assert.deepEqual(t.acks(1_000), []);
    assert.equal(t.isAckDue("x", 10_999), false);
    assert.equal(t.nextDueAt(1_000), 11_000);
    assert.deepEqual(t.acks(11_000), ["x"]);
    assert.equal(t.isAckDue("x", 11_000), true);
  });

  test("at most 100 acks of at most 64 characters per heartbeat", () => {
    const t = new AckTracker();
    t.observe(
      Array.from({ length: 150 }, (_, i) => ({ id: `d${i}`, type: "noop" })),
      0,
    );
    t.observe(
      [...Array.from({ length: 150 }, (_, i) => ({ id: `d${i}`, type: "noop" })), { id: "x".repeat(65), type: "noop" }],
      0,
    );
    const acks = t.acks(0);
    assert.equal(acks.length, 100);
    assert.ok(acks.every((a) => a.length <= 64));
  });
});
