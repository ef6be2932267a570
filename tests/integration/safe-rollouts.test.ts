// Safe rollouts at the service level, on the engine TEST_ENGINE selects: NotReady and draining
// clusters are left out of the plan (or planned in on request), a cluster NotReady at its turn is
// skipped rather than started, approval between stages, and upgrade windows that make the
// rollout wait (visibly) rather than skip.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SYSTEM_ACTOR } from "@/lib/server/audit/record-audit";
import type { CreateRolloutInput } from "@/lib/domain/rollouts";
import { WEEKDAYS } from "@/lib/domain/upgrade-windows";
import { db } from "@/lib/server/db/client";
import { abortRollout } from "@/lib/server/rollouts/abort-rollout";
import { approveRollout } from "@/lib/server/rollouts/approve-rollout";
import { createRollout } from "@/lib/server/rollouts/create-rollout";
import { getRollout } from "@/lib/server/rollouts/get-rollout";
import { planRollout } from "@/lib/server/rollouts/plan-rollout";
import { tickRollout } from "@/lib/server/rollouts/tick-rollout";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

const engine = testEngine();
appDatabase();

type Seed = { ready?: boolean; phase?: string; labels?: Record<string, string> };

/** Clusters on agent 1.4.0 labelled fleet=<fleet>, Ready and Active unless told otherwise. */
async function seedClusters(fleet: string, seeds: Seed[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, s] of seeds.entries()) {
    const id = `cl_${fleet}_${i}`;
    const labels = { fleet, ...s.labels };
    await db().cluster.create({
      data: {
        id,
        name: `${fleet}-${i}`,
        phase: s.phase ?? "Active",
        status: s.ready === false ? "NotReady" : "Ready",
        lastHeartbeatAt: s.ready === false ? new Date(Date.now() - 3_600_000) : new Date(),
        apiServerHealth: "ok",
        agentVersion: "1.4.0",
        labels: { create: Object.entries(labels).map(([key, value]) => ({ key, value })) },
      },
    });
    ids.push(id);
  }
  return ids;
}

const input = (fleet: string, over: Partial<CreateRolloutInput> = {}): CreateRolloutInput => ({
  name: `to 1.5.0 (${fleet})`,
  targetVersion: "1.5.0",
  selector: `fleet=${fleet}`,
  stages: [{ name: "all", percent: 100 }],
  maxUnavailable: 10,
  waitSeconds: 0,
  failureThreshold: 5,
  clusterTimeoutSeconds: 600,
  includeUnready: false,
  requireApproval: false,
  ...over,
});

const member = async (rolloutId: string, clusterId: string) =>
  db().rolloutCluster.findUniqueOrThrow({ where: { rolloutId_clusterId: { rolloutId, clusterId } } });

/** The agent comes back on the target version, heartbeating now. */
const upgraded = (id: string, at = new Date()) =>
  db().cluster.update({ where: { id }, data: { agentVersion: "1.5.0", phase: "Upgrading", lastHeartbeatAt: at } });

const audits = (rolloutId: string) =>
  db()
    .auditLog.findMany({ where: { targetType: "rollout", targetId: rolloutId }, orderBy: { id: "asc" } })
    .then((rows) => rows.map((r) => r.action));

describe(`safe rollouts on ${engine}`, () => {
  test("the plan leaves NotReady and draining clusters out, listed as skipped with the reason; an explicit choice includes them", async () => {
    const [ready, dead, draining] = await seedClusters("plan", [{}, { ready: false }, { phase: "Draining" }]);
    const plan = await planRollout(input("plan"));
    assert.deepEqual(plan.stages, [{ name: "all", clusters: 1, upgrades: 1 }]);
    assert.deepEqual(
      plan.skipped.map((s) => [s.clusterId, s.reason]),
      [
        [dead, "NotReady"],
        [draining, "draining"],
      ],
    );
    assert.equal((await planRollout(input("plan", { includeUnready: true }))).skipped.length, 0);

    const r = await createRollout(SYSTEM_ACTOR, input("plan"));
    const byId = new Map(r.clusters.map((c) => [c.clusterId, c]));
    assert.equal(byId.get(ready!)?.state, "Upgrading");
    assert.deepEqual(
      [byId.get(dead!)?.state, byId.get(dead!)?.error, byId.get(dead!)?.stage],
      ["Skipped", "NotReady when planned", -1],
    );
    assert.equal(byId.get(draining!)?.error, "draining when planned");
    assert.deepEqual(
      r.stages.map((s) => s.total),
      [1],
      "the stages hold only the planned clusters",
    );
    assert.equal(r.totals.skipped, 2);
    await abortRollout(SYSTEM_ACTOR, r.id);
  });

  test("explicit cluster ids: unknown ones are refused naming the field", async () => {
    const [a] = await seedClusters("ids", [{}, {}]);
    const plan = await planRollout(input("ids", { selector: undefined, clusterIds: [a!] }));
    assert.equal(plan.planned, 1);
    await assert.rejects(planRollout(input("ids", { selector: undefined, clusterIds: [a!, "cl_nope"] })), (err: unknown) => {
      const e = err as { code: string; details: { field: string }[] };
      return e.code === "invalid_request" && e.details[0]?.field === "clusterIds";
    });
  });

  test("a cluster NotReady at its turn is skipped, not started; one that goes quiet while upgrading keeps its timeout", async () => {
    const [first, second, third] = await seedClusters("turn", [{}, {}, {}]);
    const r = await createRollout(SYSTEM_ACTOR, input("turn", { maxUnavailable: 1 }));
    assert.equal((await member(r.id, first!)).state, "Upgrading");
    // The first cluster goes quiet while upgrading (its agent restarts): it is not failed yet.
    await db().cluster.update({ where: { id: first! }, data: { lastHeartbeatAt: new Date(Date.now() - 3_600_000) } });
    // The second dies before its turn.
    await db().cluster.update({ where: { id: second! }, data: { lastHeartbeatAt: new Date(Date.now() - 3_600_000) } });
    await tickRollout(r.id);
    assert.equal((await member(r.id, first!)).state, "Upgrading", "still within the per-cluster timeout");
    await upgraded(first!);
    await tickRollout(r.id);
    assert.equal((await member(r.id, first!)).state, "Succeeded");
    const skipped = await member(r.id, second!);
    assert.deepEqual([skipped.state, skipped.error, skipped.startedAt], ["Skipped", "NotReady when its turn came", null]);
    assert.equal((await db().cluster.findUniqueOrThrow({ where: { id: second! } })).phase, "Active", "never moved to Upgrading");
    assert.equal(await db().directive.count({ where: { clusterId: second! } }), 0, "no upgrade sent");
    assert.equal((await member(r.id, third!)).state, "Upgrading", "the stage went on to the next cluster at once");
    await abortRollout(SYSTEM_ACTOR, r.id);
  });

  test("with approval required the rollout waits between stages until approved; every step is audited", async () => {
    const [canary, rest] = await seedClusters("approve", [{}, {}]);
    const r = await createRollout(
      SYSTEM_ACTOR,
      input("approve", {
        requireApproval: true,
        stages: [
          { name: "canary", clusters: 1 },
          { name: "rest", percent: 100 },
        ],
      }),
    );
    await upgraded(canary!);
    await tickRollout(r.id); // settles the canary
    await tickRollout(r.id); // notes the stage finished
    await tickRollout(r.id); // waitSeconds 0: asks for approval
    let now = await getRollout(r.id);
    assert.equal(now.state, "AwaitingApproval");
    assert.ok(now.eta, "an ETA once a cluster has upgraded");
    await tickRollout(r.id);
    assert.equal((await member(r.id, rest!)).state, "Pending", "nothing starts while awaiting approval");

    const operator = { ...SYSTEM_ACTOR, type: "user" as const, id: "u_op", label: "op@example" };
    now = await approveRollout(operator, r.id, "canary looks fine");
    assert.equal(now.state, "Running");
    assert.equal(now.currentStage, 1);
    assert.equal((await member(r.id, rest!)).state, "Upgrading", "the approved stage starts at once");
    await assert.rejects(approveRollout(operator, r.id), /Cannot approve a rollout that is Running/);
    const approval = await db().auditLog.findFirstOrThrow({ where: { targetId: r.id, action: "rollout.approve" } });
    assert.equal(approval.actorLabel, "op@example");
    assert.deepEqual(JSON.parse(approval.details), { name: r.name, stage: 1, reason: "canary looks fine" });
    assert.deepEqual(await audits(r.id), ["rollout.create", "rollout.await-approval", "rollout.approve"]);
    await abortRollout(SYSTEM_ACTOR, r.id);
  });

  test("outside an upgrade window the rollout waits (and says so); a cluster in two groups needs both windows open", async () => {
    const [both, onlyA] = await seedClusters("win", [{ labels: { a: "1", b: "1" } }, { labels: { a: "1" } }]);
    // Two days from now, all day, in two zones: closed now whatever the time is.
    const later = new Date(Date.now() + 2 * 86_400_000);
    const day = WEEKDAYS[(later.getUTCDay() + 6) % 7]!;
    await db().clusterGroup.create({
      data: {
        name: "win-a",
        selector: "fleet=win,a=1",
        upgradeWindows: JSON.stringify([{ days: [day], start: "00:00", end: "24:00" }]),
        upgradeTimeZone: "UTC",
      },
    });
    await db().clusterGroup.create({
      data: {
        name: "win-b",
        selector: "fleet=win,b=1",
        // 09:00-15:00 UTC on that day, as Tokyo wall-clock time (UTC+9, no DST)
        upgradeWindows: JSON.stringify([{ days: [day], start: "18:00", end: "24:00" }]),
        upgradeTimeZone: "Asia/Tokyo",
      },
    });
    const r = await createRollout(SYSTEM_ACTOR, input("win"));
    assert.deepEqual([(await member(r.id, both!)).state, (await member(r.id, onlyA!)).state], ["Pending", "Pending"]);
    const waiting = await getRollout(r.id);
    assert.equal(waiting.state, "Running");
    assert.match(waiting.waitingReason ?? "", /^waiting for window: 2 clusters outside the upgrade windows of win-a/);

    const at = (hhmm: string) => new Date(`${later.toISOString().slice(0, 10)}T${hhmm}:00Z`);
    const heartbeatAt = async (t: Date) =>
      db().cluster.updateMany({ where: { id: { in: [both!, onlyA!] } }, data: { lastHeartbeatAt: t } });
    // 08:00 UTC: win-a is open, win-b (09:00-15:00 UTC) not yet: only the cluster in win-a alone starts.
    await heartbeatAt(at("08:00"));
    await tickRollout(r.id, at("08:00"));
    assert.deepEqual([(await member(r.id, both!)).state, (await member(r.id, onlyA!)).state], ["Pending", "Upgrading"]);
    assert.match((await getRollout(r.id)).waitingReason ?? "", /1 cluster outside the upgrade windows of win-b: .*Asia\/Tokyo/);
    // 10:00 UTC: both windows open.
    await heartbeatAt(at("10:00"));
    await tickRollout(r.id, at("10:00"));
    assert.equal((await member(r.id, both!)).state, "Upgrading");
    assert.equal((await getRollout(r.id)).waitingReason, null);
    await abortRollout(SYSTEM_ACTOR, r.id);
  });
});
