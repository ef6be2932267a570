import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { seededRandom } from "@/lib/agent/clock";
import { generateRsaKeyPair } from "@/lib/agent/csr";
import { INSTANCE_TYPES } from "@/lib/agent/simulator/simulated-cluster";
import { ENVS, generateFleet, REGIONS, simulatedClusterCaFingerprint } from "@/lib/agent/simulator/metadata";
import { formatCounts, percentile, SimStats } from "@/lib/agent/simulator/stats";
import { assignFaults, KeyPool, pausesEveryRegistration, Semaphore } from "@/lib/agent/simulator/fleet-simulator";
import { heartbeatRequestSchema, registerRequestSchema } from "@/lib/domain/agent-protocol";

describe("simulated fleet metadata", () => {
  const fleet = generateFleet(2000, { prefix: "sim", seed: 1 });

  test("names like sim-eu-west-1-prod-0042: unique DNS labels encoding region and env", () => {
    assert.equal(fleet.length, 2000);
    assert.equal(new Set(fleet.map((c) => c.name)).size, 2000);
    for (const c of fleet) {
      assert.match(c.name, /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
      assert.equal(c.name, `sim-${c.labels.region}-${c.labels.env}-${String(c.index).padStart(4, "0")}`);
    }
  });

  test("the same seed gives the same fleet; another seed another one", () => {
    assert.deepEqual(generateFleet(50, { prefix: "sim", seed: 1 }), fleet.slice(0, 50));
    assert.notDeepEqual(
      generateFleet(50, { prefix: "sim", seed: 2 }).map((c) => c.name),
      fleet.slice(0, 50).map((c) => c.name),
    );
  });

  test("varied labels, versions and pools", () => {
    assert.deepEqual(new Set(fleet.map((c) => c.labels.env)), new Set(ENVS));
    assert.equal(new Set(fleet.map((c) => c.labels.region)).size, REGIONS.length);
    assert.ok(new Set(fleet.map((c) => c.labels.team)).size >= 6);
    const minors = new Set(fleet.map((c) => c.facts.kubernetesVersion.split(".").slice(0, 2).join(".")));
    assert.deepEqual([...minors].sort(), ["1.28", "1.29", "1.30", "1.31"]);
    assert.ok(new Set(fleet.map((c) => c.facts.kubernetesVersion)).size > 20, "patch variety");
    assert.ok(new Set(fleet.map((c) => c.facts.agentVersion)).size >= 4);
    const poolCounts = new Set(fleet.map((c) => c.facts.nodePools.length));
    assert.ok(poolCounts.has(1) && poolCounts.has(3), [...poolCounts].join(","));
  });

  test("pools: a system pool first, cpu/memory consistent with the instance type", () => {
    for (const c of fleet) {
      assert.equal(c.facts.nodePools[0]!.name, "system");
      assert.equal(new Set(c.facts.nodePools.map((p) => p.name)).size, c.facts.nodePools.length);
      for (const p of c.facts.nodePools) {
        const shape = INSTANCE_TYPES[p.instanceType ?? ""];
        assert.ok(shape, p.instanceType);
        assert.equal(p.cpuCores, shape.cpu * p.nodeCount);
        assert.equal(p.memoryGiB, shape.memoryGiB * p.nodeCount);
        assert.ok(p.nodeCount >= 1);
      }
      const nodes = c.facts.nodePools.reduce((s, p) => s + p.nodeCount, 0);
      assert.ok(c.facts.workloads.pods <= nodes * 110);
    }
  });

  test("every generated cluster passes the protocol's own request schemas", () => {
    for (const c of fleet.slice(0, 200)) {
      const reg = registerRequestSchema.safeParse({
        name: c.name,
        apiServerUrl: c.apiServerUrl,
        caFingerprint: c.clusterCaFingerprint,
        agentVersion: c.facts.agentVersion,
        kubernetesVersion: c.facts.kubernetesVersion,
        labels: c.labels,
        csr: "x",
      });
      assert.equal(reg.success, true, c.name);
      const hb = heartbeatRequestSchema.safeParse({
        agentVersion: c.facts.agentVersion,
        kubernetesVersion: c.facts.kubernetesVersion,
        nodePools: c.facts.nodePools,
        workloads: c.facts.workloads,
        health: { apiServer: "ok", logs: true, metrics: true },
        acks: [],
      });
      assert.equal(hb.success, true, c.name);
    }
  });

  test("kube-system UIDs: UUID-shaped, one per cluster, unless --duplicate-uids pairs neighbours", () => {
    const uids = fleet.map((c) => c.facts.clusterUid);
    assert.equal(new Set(uids).size, fleet.length);
    for (const u of uids.slice(0, 50)) assert.match(u!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const paired = generateFleet(10, { prefix: "sim", seed: 1, duplicateUids: 2 }).map((c) => c.facts.clusterUid);
    assert.equal(paired[0], paired[1]);
    assert.equal(paired[2], paired[3]);
    assert.notEqual(paired[1], paired[2]);
    assert.equal(new Set(paired).size, 8, "two pairs share, the rest do not");
    assert.deepEqual(paired.slice(4), uids.slice(4, 10), "the others keep their own");
  });

  test("the simulated cluster CA fingerprint is stable per name and seed", () => {
    assert.equal(simulatedClusterCaFingerprint("a", 1), simulatedClusterCaFingerprint("a", 1));
    assert.notEqual(simulatedClusterCaFingerprint("a", 1), simulatedClusterCaFingerprint("a", 2));
    assert.match(simulatedClusterCaFingerprint("a", 1), /^sha256:[0-9a-f]{64}$/);
  });
});

describe("simulator building blocks", () => {
  test("faults partition the fleet by share, at most one per cluster", () => {
    const faults = assignFaults(1000, { stop: 0.05, flap: 0.1, degraded: 0.2, late: 0.05 }, seededRandom(9));
    const count = (k: string | null) => faults.filter((f) => f === k).length;
    assert.deepEqual([count("stop"), count("flap"), count("degraded"), count("late"), count(null)], [50, 100, 200, 50, 600]);
    // Spread over the fleet, not the first N indices.
    assert.ok(faults.slice(0, 50).some((f) => f === null) && faults.slice(500).some((f) => f === "stop"));
  });

  test("the key pool rotates and never hands back the key in use", async () => {
    const keys = await Promise.all([generateRsaKeyPair(), generateRsaKeyPair()]);
    const pool = new KeyPool(keys);
    const first = pool.next();
    for (let i = 0; i < 5; i++) assert.notEqual(pool.next(first.privateKeyPem).privateKeyPem, first.privateKeyPem);
    assert.throws(() => new KeyPool([]));
  });

  test("the semaphore bounds concurrency", async () => {
    const sem = new Semaphore(3);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        sem.run(async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 2));
          active--;
        }),
      ),
    );
    assert.equal(peak, 3);
  });

  test("only a 429 pauses every simulated registration; each agent waits out its own 503 overloaded", () => {
    assert.equal(pausesEveryRegistration({ code: "RATE_LIMITED", retryAfterMs: 3000 }), true);
    assert.equal(pausesEveryRegistration({ code: "OVERLOADED", retryAfterMs: 3000 }), false);
    assert.equal(pausesEveryRegistration({ code: "DATABASE_UNAVAILABLE", retryAfterMs: 3000 }), false);
    assert.equal(pausesEveryRegistration({ code: "RATE_LIMITED", retryAfterMs: undefined }), false);
  });

  test("errors are counted by code, and by phase when it is given", () => {
    const stats = new SimStats(0);
    stats.error("UNREACHABLE", "heartbeat");
    stats.error("UNREACHABLE", "heartbeat");
    stats.error("OVERLOADED", "register");
    stats.error("OTHER");
    assert.deepEqual(Object.fromEntries(stats.errors), { UNREACHABLE: 2, OVERLOADED: 1, OTHER: 1 });
    assert.deepEqual(Object.fromEntries(stats.phaseErrors.get("heartbeat") ?? []), { UNREACHABLE: 2 });
    assert.deepEqual(Object.fromEntries(stats.phaseErrors.get("register") ?? []), { OVERLOADED: 1 });
  });

  test("percentiles and the live line", () => {
    assert.equal(percentile([], 50), null);
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.equal(percentile(sorted, 50), 50);
    assert.equal(percentile(sorted, 99), 99);
    assert.equal(percentile(sorted, 100), 100);
    const stats = new SimStats(0, seededRandom(1));
    stats.target = 10;
    stats.registered = 7;
    for (let i = 1; i <= 100; i++) stats.heartbeat(i);
    stats.error("RATE_LIMITED");
    stats.error("RATE_LIMITED");
    stats.error("NET_RESET");
    stats.directives = 4;
    const line = stats.line(2000);
    assert.match(line, /registered 7\/10/);
    assert.match(line, /hb 50\.0\/s/);
    assert.match(line, /p50 50ms p99 99ms/);
    assert.match(line, /directives 4/);
    assert.match(line, /errors RATE_LIMITED=2 NET_RESET=1/);
    assert.match(stats.line(3000), /hb 0\.0\/s .*p50 - p99 -/, "a new window");
    assert.match(stats.summary(4000), /heartbeats:\s+100 \(25\.0\/s\)/);
    assert.equal(
      formatCounts(
        new Map([
          ["a", 1],
          ["b", 5],
        ]),
      ),
      "b=5 a=1",
    );
  });
});
