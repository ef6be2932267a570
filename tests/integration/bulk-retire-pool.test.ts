// "Retire pool X on the selection", on the engine TEST_ENGINE picks: the bulk drain's guard (a
// filter with a condition, the confirmed count, a reason; the whole fleet needs an admin),
// and each cluster refused as a single retirement is (no such pool, not Ready, its last pool).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bulkRetireNodePoolSchema, type BulkRetireNodePoolInput } from "@/lib/contracts/clusters";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { bulkRetireNodePool } from "@/lib/server/node-pools/bulk-retire-node-pool";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();
const ACTOR: Actor = { type: "user", id: null, label: "ops@example.com" };

async function cluster(id: string, env: string, pools: string[], ready = true) {
  await db().cluster.create({
    data: {
      id,
      name: `n-${id}`,
      phase: "Active",
      registeredAt: new Date(),
      lastHeartbeatAt: ready ? new Date() : new Date(Date.now() - 3600_000),
      apiServerHealth: "ok",
      labels: { create: [{ key: "env", value: env }] },
      nodePools: { create: pools.map((name) => ({ name, nodeCount: 2, readyNodes: 2 })) },
    },
  });
}

const retire = (body: BulkRetireNodePoolInput) =>
  bulkRetireNodePool({ actor: ACTOR, role: "operator" }, bulkRetireNodePoolSchema.parse(body));
const refusedAs = (code: string) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, code, err.message);
  return true;
};

describe(`retiring a pool on a selection on ${testEngine()}`, () => {
  test("a dry run says per cluster who would retire and why not; the real run needs the count and a reason", async () => {
    await cluster("cl_ok", "qa", ["spot", "general"]);
    await cluster("cl_only", "qa", ["spot"]);
    await cluster("cl_dead", "qa", ["spot", "general"], false);
    await cluster("cl_none", "qa", ["general"]);
    await cluster("cl_prod", "prod", ["spot", "general"]);

    const dry = await retire({ filter: { selector: "env=qa" }, pool: "spot", dryRun: true });
    assert.equal(dry.matched, 4);
    assert.equal(dry.started, 1);
    assert.deepEqual(dry.breakdown?.env, [{ value: "qa", count: 4 }]);
    assert.deepEqual(Object.fromEntries(dry.results.map((r) => [r.id, r.error ?? "ok"])), {
      cl_ok: "ok",
      cl_only: "last_node_pool",
      cl_dead: "cluster_not_ready",
      cl_none: "not_found",
    });
    assert.equal(await db().directive.count(), 0, "a dry run writes nothing");

    const whole = await retire({ filter: { selector: "!no-such-label" }, pool: "spot", dryRun: true });
    assert.deepEqual(whole.guard, {
      reasons: ["wholeFleet", "production"],
      production: 1,
      fleet: 5,
      phrase: "retire pool spot on all 5 clusters, 1 in production",
      confirmable: false,
    });
    await assert.rejects(
      retire({ filter: { selector: "env" }, pool: "spot", reason: "all", confirmCount: 5, confirmPhrase: whole.guard!.phrase }),
      refusedAs("admin_required"),
      "an operator cannot, whatever they type",
    );
    await assert.rejects(retire({ filter: {}, pool: "spot", dryRun: true }), refusedAs("filter_required"));
    assert.equal(bulkRetireNodePoolSchema.safeParse({ ids: ["cl_ok"], pool: "spot", confirmCount: 1 }).success, false);
    await assert.rejects(
      retire({ filter: { selector: "env=qa" }, pool: "spot", reason: "spot is gone", confirmCount: 3 }),
      refusedAs("count_changed"),
    );

    const done = await retire({ filter: { selector: "env=qa" }, pool: "spot", reason: "spot is gone", confirmCount: 4 });
    assert.equal(done.started, 1);
    assert.equal((await db().nodePool.findFirstOrThrow({ where: { clusterId: "cl_ok", name: "spot" } })).state, "Retiring");
    assert.equal((await db().nodePool.findFirstOrThrow({ where: { clusterId: "cl_only", name: "spot" } })).state, "Active");
    const audit = await db().auditLog.findFirstOrThrow({ where: { action: "nodePool.bulk_retire" } });
    const details = JSON.parse(audit.details) as Record<string, unknown>;
    assert.equal(details.nodePool, "spot");
    assert.equal(details.retired, 1);
    assert.equal(details.reason, "spot is gone");
    assert.equal(await db().auditLog.count({ where: { action: "nodePool.retire" } }), 1, "the one retirement audited as such");
  });
});
