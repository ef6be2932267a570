// A canary stage passes on evidence, on the engine TEST_ENGINE selects: approving the next stage
// is refused (409 canaries_not_ready) while an upgraded canary is NotReady on the new version,
// unless overridden with a reason (audited as an override); a canary that turns NotReady during
// the soak pauses the rollout with the reason; the rollout's view carries the evidence.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { actOnRollout } from "@/lib/server/rollouts/act-on-rollout";
import { createRollout } from "@/lib/server/rollouts/create-rollout";
import { getRollout } from "@/lib/server/rollouts/get-rollout";
import { tickRollout } from "@/lib/server/rollouts/tick-rollout";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();
const ACTOR: Actor = { type: "user", id: null, label: "ops@example.com" };
const LONG_AGO = new Date(Date.now() - 24 * 3600_000);

async function seed(fleet: string, n: number) {
  for (let i = 0; i < n; i++)
    await db().cluster.create({
      data: {
        id: `cl_${fleet}_${i}`,
        name: `${fleet}-${i}`,
        phase: "Active",
        status: "Ready",
        lastHeartbeatAt: new Date(),
        apiServerHealth: "ok",
        agentVersion: "1.4.0",
        labels: { create: [{ key: "fleet", value: fleet }] },
      },
    });
}

/** A rollout whose canary stage (two clusters) has upgraded and settled Succeeded. */
async function canariesUpgraded(fleet: string, over: { waitSeconds: number; requireApproval: boolean }) {
  await seed(fleet, 3);
  const r = await createRollout(ACTOR, {
    name: `soak ${fleet}`,
    targetVersion: "1.5.0",
    selector: `fleet=${fleet}`,
    stages: [
      { name: "canary", clusters: 2 },
      { name: "rest", percent: 100 },
    ],
    maxUnavailable: 2,
    failureThreshold: 1,
    clusterTimeoutSeconds: 600,
    includeUnready: false,
    ...over,
  });
  const canaries = r.clusters.filter((c) => c.stage === 0).map((c) => c.clusterId);
  // The agents come back on the new version.
  await db().cluster.updateMany({
    where: { id: { in: canaries } },
    data: { agentVersion: "1.5.0", lastHeartbeatAt: new Date() },
  });
  await tickRollout(r.id); // settles them Succeeded
  await tickRollout(r.id); // notes the stage finished
  return { id: r.id, canaries };
}

const refusedAs = (code: string, status: number) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, code, err.message);
  assert.equal(err.status, status);
  return true;
};

describe(`canary evidence on ${testEngine()}`, () => {
  test("approval is refused while every canary is NotReady on the new version; an override with a reason is audited", async () => {
    const { id, canaries } = await canariesUpgraded("approve", { waitSeconds: 0, requireApproval: true });
    await tickRollout(id);
    assert.equal((await getRollout(id)).state, "AwaitingApproval");

    await db().cluster.updateMany({ where: { id: { in: canaries } }, data: { lastHeartbeatAt: LONG_AGO } });
    const view = await getRollout(id);
    assert.ok(view.evidence, "the stage's evidence is served");
    assert.deepEqual(
      view.evidence.canaries.map((c) => [c.state, c.health, c.agentVersion]),
      [
        ["Succeeded", "NotReady", "1.5.0"],
        ["Succeeded", "NotReady", "1.5.0"],
      ],
    );
    assert.match(view.evidence.problem ?? "", /Not every canary is Ready/);

    await assert.rejects(actOnRollout(ACTOR, id, { action: "approve" }), refusedAs("canaries_not_ready", 409));
    assert.equal((await getRollout(id)).state, "AwaitingApproval", "nothing moved");

    const approved = await actOnRollout(ACTOR, id, { action: "approve", override: true, reason: "known DNS blip" });
    assert.equal(approved.currentStage, 1);
    const audit = await db().auditLog.findFirstOrThrow({ where: { action: "rollout.approve" } });
    const details = JSON.parse(audit.details) as Record<string, unknown>;
    assert.equal(details.override, true);
    assert.equal(details.reason, "known DNS blip");
    assert.match(String(details.overridden), /NotReady/);
  });

  test("with every canary Ready on the new version, approval goes through without an override", async () => {
    const { id } = await canariesUpgraded("healthy", { waitSeconds: 0, requireApproval: true });
    await tickRollout(id);
    const approved = await actOnRollout(ACTOR, id, { action: "approve" });
    assert.equal(approved.currentStage, 1);
  });

  test("a canary turning NotReady during the soak pauses the rollout with the reason; the next stage does not start", async () => {
    const { id, canaries } = await canariesUpgraded("soak", { waitSeconds: 300, requireApproval: false });
    await tickRollout(id);
    assert.equal((await getRollout(id)).state, "Running", "soaking");
    await db().cluster.update({ where: { id: canaries[1]! }, data: { lastHeartbeatAt: LONG_AGO } });
    await tickRollout(id);
    const paused = await getRollout(id);
    assert.equal(paused.state, "Paused");
    assert.equal(paused.pausedReason, "canary soak-1: NotReady during the soak");
    assert.equal(paused.currentStage, 0);
    assert.equal(paused.clusters.filter((c) => c.stage === 1 && c.state !== "Pending").length, 0);
  });
});
