// Rollouts and the lifecycle helpers at the service level, on the engine TEST_ENGINE selects:
// every phase change writes its event in the same transaction as the change that causes it,
// effects run only after commit, and the rollout list reads in a fixed number of queries.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import type { Phase } from "@/lib/domain/status";
import { db, type Tx } from "@/lib/server/db/client";
import { inTransaction, type AfterCommit } from "@/lib/server/db/transaction";
import { subscribe, type FleetEvent } from "@/lib/server/events/bus";
import { changePhase } from "@/lib/server/lifecycle/change-phase";
import { abortRollout } from "@/lib/server/rollouts/abort-rollout";
import { createRollout } from "@/lib/server/rollouts/create-rollout";
import { getRollout } from "@/lib/server/rollouts/get-rollout";
import { listRollouts } from "@/lib/server/rollouts/list-rollouts";
import { tickRollout } from "@/lib/server/rollouts/tick-rollout";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

const engine = testEngine();
const database = appDatabase();

/** Active, Ready clusters on agent 1.4.0 labelled fleet=<fleet>. */
async function seedClusters(fleet: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `cl_${fleet}_${i}`;
    await db().cluster.create({
      data: {
        id,
        name: `${fleet}-${i}`,
        phase: "Active",
        status: "Ready",
        lastHeartbeatAt: new Date(),
        apiServerHealth: "ok",
        agentVersion: "1.4.0",
        labels: { create: [{ key: "fleet", value: fleet }] },
      },
    });
    ids.push(id);
  }
  return ids;
}

const rolloutOver = (fleet: string, name = `to 1.5.0 (${fleet})`) =>
  createRollout(SYSTEM_ACTOR, {
    name,
    targetVersion: "1.5.0",
    selector: `fleet=${fleet}`,
    stages: [{ name: "all", percent: 100 }],
    maxUnavailable: 1,
    waitSeconds: 0,
    failureThreshold: 1,
    clusterTimeoutSeconds: 600,
    includeUnready: false,
    requireApproval: false,
  });

const phaseEvents = (clusterId: string) =>
  db().clusterEvent.findMany({ where: { clusterId, kind: "phase" }, orderBy: { id: "asc" } });

describe(`rollouts and phase changes on ${engine}`, () => {
  test("aborting a rollout moves the upgrading cluster back to Active with an event", async () => {
    const [first] = await seedClusters("abort", 2);
    const rollout = await rolloutOver("abort");
    assert.equal(rollout.totals.upgrading, 1, "the first tick starts one upgrade");
    assert.equal((await db().cluster.findUniqueOrThrow({ where: { id: first! } })).phase, "Upgrading");

    const aborted = await abortRollout(SYSTEM_ACTOR, rollout.id, "changed plans");
    assert.equal(aborted.state, "Aborted");
    assert.equal((await db().cluster.findUniqueOrThrow({ where: { id: first! } })).phase, "Active");
    const events = (await phaseEvents(first!)).map((e) => [e.fromValue, e.toValue, e.reason]);
    assert.deepEqual(events, [
      ["Active", "Upgrading", "rollout to 1.5.0 (abort): upgrading to 1.5.0"],
      ["Upgrading", "Active", "rollout to 1.5.0 (abort) aborted: changed plans"],
    ]);
    assert.equal(await db().directive.count({ where: { clusterId: first!, ackedAt: null } }), 0, "the upgrade is withdrawn");
  });

  test("starting an upgrade is all or nothing: a failure before the phase event leaves the cluster Pending and Active", async () => {
    const [first] = await seedClusters("atomic", 1);
    // The phase event for the move to Upgrading cannot be written: everything the tick did for
    // that cluster must be undone with it.
    if (engine === "sqlite") {
      await database.current.exec(`CREATE TRIGGER refuse_upgrading BEFORE INSERT ON "ClusterEvent"
        WHEN NEW."toValue" = 'Upgrading' BEGIN SELECT RAISE(ABORT, 'refused by test'); END;`);
    } else {
      await database.current.exec(`CREATE FUNCTION refuse_upgrading() RETURNS trigger AS $$
        BEGIN RAISE EXCEPTION 'refused by test'; END $$ LANGUAGE plpgsql;
        CREATE TRIGGER refuse_upgrading BEFORE INSERT ON "ClusterEvent"
        FOR EACH ROW WHEN (NEW."toValue" = 'Upgrading') EXECUTE FUNCTION refuse_upgrading();`);
    }
    try {
      // (the adapters word the trigger's refusal differently; it is the event write that fails)
      await assert.rejects(rolloutOver("atomic"), /clusterEvent\.create|refused by test/);
    } finally {
      await database.current.exec(
        engine === "sqlite"
          ? "DROP TRIGGER refuse_upgrading;"
          : `DROP TRIGGER refuse_upgrading ON "ClusterEvent"; DROP FUNCTION refuse_upgrading();`,
      );
    }
    const member = await db().rolloutCluster.findFirstOrThrow({ where: { clusterId: first! } });
    assert.deepEqual([member.state, member.directiveId, member.startedAt], ["Pending", null, null], "not claimed");
    assert.equal((await db().cluster.findUniqueOrThrow({ where: { id: first! } })).phase, "Active");
    assert.equal(await db().directive.count({ where: { clusterId: first! } }), 0, "no upgrade directive");
    assert.deepEqual(await phaseEvents(first!), []);

    // The next tick, with nothing in the way, starts it properly.
    await tickRollout(member.rolloutId);
    assert.equal((await db().cluster.findUniqueOrThrow({ where: { id: first! } })).phase, "Upgrading");
    assert.equal((await phaseEvents(first!)).length, 1);
    await abortRollout(SYSTEM_ACTOR, member.rolloutId);
  });

  test("an upgrade handed to a GitOps repository shows the image, never times out and succeeds when the new version heartbeats; a failed ack fails the cluster at once", async () => {
    const [gitops, reverted] = await seedClusters("handoff", 2);
    const rollout = await createRollout(SYSTEM_ACTOR, {
      name: "to 1.5.0 (handoff)",
      targetVersion: "1.5.0",
      selector: "fleet=handoff",
      stages: [{ name: "all", percent: 100 }],
      maxUnavailable: 2,
      waitSeconds: 0,
      failureThreshold: 5,
      clusterTimeoutSeconds: 600,
      includeUnready: false,
      requireApproval: false,
    });
    const directiveOf = async (clusterId: string) =>
      (await db().rolloutCluster.findFirstOrThrow({ where: { rolloutId: rollout.id, clusterId } })).directiveId!;
    // As recordHeartbeat writes the acks (the agent's reason and code).
    const handoff =
      "upgrade through your repository: image mirror.example/fleet/agent:1.5.0 (Argo CD manages the Deployment: annotation argocd.argoproj.io/tracking-id)";
    await db().directive.update({
      where: { id: await directiveOf(gitops!) },
      data: { ackedAt: new Date(), failedReason: handoff, failedCode: "gitops_managed" },
    });
    await db().directive.update({
      where: { id: await directiveOf(reverted!) },
      data: { ackedAt: new Date(), failedReason: "the Deployment was reverted (GitOps?)", failedCode: null },
    });
    const later = new Date(Date.now() + 3_600_000);
    await db().cluster.updateMany({ where: { id: { in: [gitops!, reverted!] } }, data: { lastHeartbeatAt: later } });
    await tickRollout(rollout.id, later);
    const members = new Map((await getRollout(rollout.id)).clusters.map((c) => [c.clusterId, c]));
    assert.deepEqual(
      [members.get(gitops!)?.state, members.get(gitops!)?.handoff],
      ["Upgrading", handoff],
      "an hour past the timeout, still waiting for the repository",
    );
    assert.deepEqual(
      [members.get(reverted!)?.state, members.get(reverted!)?.error],
      ["Failed", "the agent could not upgrade: the Deployment was reverted (GitOps?)"],
    );

    await db().cluster.update({ where: { id: gitops! }, data: { agentVersion: "1.5.0", lastHeartbeatAt: later } });
    await tickRollout(rollout.id, later);
    assert.equal(
      (await db().rolloutCluster.findFirstOrThrow({ where: { rolloutId: rollout.id, clusterId: gitops! } })).state,
      "Succeeded",
    );
  });

  test("listRollouts reads in two queries however many rollouts there are", async () => {
    await seedClusters("list", 3);
    for (let i = 0; i < 3; i++) {
      const r = await rolloutOver("list", `list ${i}`);
      await abortRollout(SYSTEM_ACTOR, r.id);
    }
    let queries = 0;
    const counting = db().$extends({
      query: {
        $allOperations({ args, query }) {
          queries++;
          return query(args);
        },
      },
    });
    const list = await listRollouts(counting as unknown as Parameters<typeof listRollouts>[0]);
    assert.ok(list.length >= 5, `every rollout listed (${list.length})`);
    assert.equal(queries, 2);
    const byName = new Map(list.map((r) => [r.name, r]));
    assert.equal(byName.get("list 2")?.clusters[0]?.name, "list-0", "cluster names resolved");
  });
});

describe(`inTransaction and changePhase on ${engine}`, () => {
  test("effects run after commit, and not at all when the transaction rolls back", async () => {
    const [id] = await seedClusters("effects", 1);
    const at = new Date();
    const move = (tx: Tx, afterCommit: AfterCommit, from: Phase, to: Phase) =>
      changePhase(tx, afterCommit, { clusterId: id!, clusterName: "effects-0", from, to, reason: "test", at });
    const phase = async () => (await db().cluster.findUniqueOrThrow({ where: { id: id! } })).phase;
    const heard: FleetEvent[] = [];
    const stop = subscribe((e) => heard.push(e));
    try {
      await assert.rejects(
        inTransaction(async (tx, afterCommit) => {
          assert.ok(await move(tx, afterCommit, "Active", "Draining"));
          throw new Error("rolled back");
        }),
        /rolled back/,
      );
      assert.deepEqual(heard, [], "nothing published for a rolled-back change");
      assert.equal(await phase(), "Active");
      assert.deepEqual(await phaseEvents(id!), []);

      await inTransaction(async (tx, afterCommit) => {
        await move(tx, afterCommit, "Active", "Draining");
        assert.deepEqual(heard, [], "not before commit");
      });
      assert.deepEqual(heard, [{ type: "cluster.updated", clusterId: id!, name: "effects-0", at: at.toISOString() }]);
      assert.equal(await phase(), "Draining");

      // From a phase it is no longer in: nothing is written or published.
      assert.equal(await inTransaction((tx, afterCommit) => move(tx, afterCommit, "Active", "Upgrading")), false);
      assert.equal(heard.length, 1);
      assert.deepEqual(
        (await phaseEvents(id!)).map((e) => e.toValue),
        ["Draining"],
      );
    } finally {
      stop();
    }
  });
});
