// The cluster page's day-two services on the engine TEST_ENGINE picks: agents' capabilities kept
// on the cluster's row, retiring a node pool only for an agent that advertises node actions, and
// owner and notes audited with before and after.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { retireNodePoolSchema } from "@/lib/contracts/clusters";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { updateCluster } from "@/lib/server/clusters/update-cluster";
import { db } from "@/lib/server/db/client";
import { noteCapabilities, storedCapabilities } from "@/lib/server/heartbeats/agent-capabilities";
import { retireNodePool } from "@/lib/server/node-pools/node-pools";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const ACTOR: Actor = { type: "user", id: null, label: "ops@example.com" };

/** A Ready cluster with two node pools (general, batch). */
async function cluster(id: string) {
  await db().cluster.create({
    data: { id, name: `n-${id}`, phase: "Active", registeredAt: new Date(), lastHeartbeatAt: new Date(), apiServerHealth: "ok" },
  });
  await db().nodePool.create({ data: { clusterId: id, name: "general", nodeCount: 3, readyNodes: 3 } });
  await db().nodePool.create({ data: { clusterId: id, name: "batch", nodeCount: 2, readyNodes: 2 } });
}

const why = (reason: string) => ({ reason });

/** noteCapabilities writes off the heartbeat's path: wait until the stored set is `want`. */
async function stored(id: string, want: string[] | null) {
  for (let i = 0; i < 50; i++) {
    const got = await storedCapabilities(id);
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(await storedCapabilities(id), want);
}

/** What a restarted instance remembers of the sets it saw: nothing. */
function forgetSeenCapabilities() {
  (globalThis as { __fleetProcessSingletons?: Map<string, unknown> }).__fleetProcessSingletons?.delete("agent-capabilities");
}

const code = (c: string) => (e: unknown) => e instanceof ApiError && e.code === c;

describe(`cluster page services on ${testEngine()}`, () => {
  test("capabilities are stored on the cluster when the set changes, not on every heartbeat, and kept out of the history", async () => {
    await cluster("cl_caps1");
    noteCapabilities("cl_caps1", undefined);
    await stored("cl_caps1", null);
    noteCapabilities("cl_caps1", ["upgrade", "drainNodePool", "upgrade"]);
    await stored("cl_caps1", ["drainNodePool", "upgrade"]);
    const row = () =>
      db().cluster.findUniqueOrThrow({ where: { id: "cl_caps1" }, select: { capabilities: true, updatedAt: true } });
    const first = await row();
    assert.equal(first.capabilities, '["drainNodePool","upgrade"]');

    // The same set again, from this instance or from one that has just started: no write.
    await new Promise((r) => setTimeout(r, 15));
    noteCapabilities("cl_caps1", ["drainNodePool", "upgrade"]);
    forgetSeenCapabilities();
    noteCapabilities("cl_caps1", ["upgrade", "drainNodePool"]);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await row(), first, "an unchanged set is not written again");

    noteCapabilities("cl_caps1", ["upgrade"]);
    await stored("cl_caps1", ["upgrade"]);
    // Nothing in the history, which retention prunes: the column is the only record.
    assert.equal(await db().clusterEvent.count({ where: { clusterId: "cl_caps1" } }), 0);
    const detail = await getCluster("cl_caps1");
    assert.deepEqual(detail.capabilities, ["upgrade"]);
    assert.deepEqual(detail.events, []);
  });

  test("a pool is retired unless the agent lists capabilities without node actions; twice is a conflict", async () => {
    // An older agent lists no capabilities: it is sent the directive (and nacks it if it cannot).
    await cluster("cl_pool0");
    await retireNodePool(ACTOR, "cl_pool0", "general", why("older agent"));
    assert.equal(await db().directive.count({ where: { clusterId: "cl_pool0", type: "drainNodePool" } }), 1);

    await cluster("cl_pool1");
    noteCapabilities("cl_pool1", ["upgrade"]);
    await stored("cl_pool1", ["upgrade"]);
    await assert.rejects(retireNodePool(ACTOR, "cl_pool1", "general", why("x")), code("incompatible_agent"));
    noteCapabilities("cl_pool1", ["upgrade", "drainNodePool"]);
    await stored("cl_pool1", ["drainNodePool", "upgrade"]);
    await retireNodePool(ACTOR, "cl_pool1", "general", why("smaller nodes"));
    const pool = await db().nodePool.findFirstOrThrow({ where: { clusterId: "cl_pool1", name: "general" } });
    assert.equal(pool.state, "Retiring");
    assert.equal(await db().directive.count({ where: { clusterId: "cl_pool1", type: "drainNodePool" } }), 1);
    const audit = await db().auditLog.findFirstOrThrow({ where: { action: "nodePool.retire", targetId: "cl_pool1" } });
    assert.match(audit.details, /"nodes":3/);
    await assert.rejects(retireNodePool(ACTOR, "cl_pool1", "general", why("x")), code("conflict"));
    await assert.rejects(retireNodePool(ACTOR, "cl_pool1", "nope", why("x")), code("not_found"));
    await assert.rejects(retireNodePool(ACTOR, "cl_missing", "general", why("x")), code("not_found"));
  });

  test("retiring is refused on the last active pool and on a cluster that is not Ready, and needs a reason", async () => {
    await cluster("cl_last");
    await retireNodePool(ACTOR, "cl_last", "general", why("smaller nodes"));
    // batch is now the only pool not being retired.
    await assert.rejects(retireNodePool(ACTOR, "cl_last", "batch", why("x")), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, "last_node_pool");
      assert.equal(e.status, 409);
      assert.match(e.message, /batch is the cluster's last active node pool/);
      return true;
    });

    await cluster("cl_dead");
    await db().cluster.update({ where: { id: "cl_dead" }, data: { lastHeartbeatAt: new Date(Date.now() - 3600_000) } });
    await assert.rejects(retireNodePool(ACTOR, "cl_dead", "general", why("x")), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, "cluster_not_ready");
      assert.match(e.message, /The cluster is NotReady/);
      return true;
    });
    assert.equal(await db().directive.count({ where: { clusterId: { in: ["cl_last", "cl_dead"] } } }), 1, "only the first");
    assert.equal(retireNodePoolSchema.safeParse({}).success, false, "a reason is required");
    assert.equal(retireNodePoolSchema.safeParse({ reason: "  " }).success, false);
  });

  test("a drain the agent refused may be asked again allowing what it would lose, audited; one under way may not", async () => {
    await cluster("cl_pool2");
    await retireNodePool(ACTOR, "cl_pool2", "general", why("smaller nodes"));
    const first = await db().directive.findFirstOrThrow({ where: { clusterId: "cl_pool2", type: "drainNodePool" } });
    assert.deepEqual(JSON.parse(first.payload), { nodePool: "general" }, "nothing may be lost unless asked");
    await assert.rejects(retireNodePool(ACTOR, "cl_pool2", "general", { ...why("again"), force: true }), code("conflict"));
    // The agent refuses: a bare pod would be lost (a failed ack closes the directive).
    await db().directive.update({
      where: { id: first.id },
      data: { ackedAt: new Date(), failedReason: "node pool general was not drained, as kubectl drain would not" },
    });
    await retireNodePool(ACTOR, "cl_pool2", "general", {
      ...why("bare debug pods may go"),
      force: true,
      deleteEmptyDirData: true,
    });
    const again = await db().directive.findFirstOrThrow({
      where: { clusterId: "cl_pool2", type: "drainNodePool", ackedAt: null },
    });
    assert.deepEqual(JSON.parse(again.payload), { nodePool: "general", force: true, deleteEmptyDirData: true });
    const audit = await db().auditLog.findFirstOrThrow({
      where: { action: "nodePool.retire", targetId: "cl_pool2" },
      orderBy: { id: "desc" },
    });
    assert.deepEqual(
      [JSON.parse(audit.details).force, JSON.parse(audit.details).deleteEmptyDirData, JSON.parse(audit.details).reason],
      [true, true, "bare debug pods may go"],
    );
  });

  test("owner and notes are saved, cleared and audited with before and after", async () => {
    await cluster("cl_owner1");
    await updateCluster(ACTOR, "cl_owner1", { owner: "team-a", notes: "runbook: x" });
    await updateCluster(ACTOR, "cl_owner1", { owner: null });
    const detail = await getCluster("cl_owner1");
    assert.equal(detail.owner, null);
    assert.equal(detail.notes, "runbook: x");
    const audits = await db().auditLog.findMany({
      where: { action: "cluster.update", targetId: "cl_owner1" },
      orderBy: { at: "asc" },
    });
    assert.deepEqual(
      audits.map((a) => (JSON.parse(a.details) as { owner?: unknown }).owner),
      [
        { from: null, to: "team-a" },
        { from: "team-a", to: null },
      ],
    );
  });
});
