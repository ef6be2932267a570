// A team's rollouts (lib/server/rollouts/rollout-team.ts) on the engine TEST_ENGINE picks: the plan
// counts only the team's clusters and says how many it left out, the rollout never upgrades a
// cluster outside the scope (not one that matches later, not one relabelled while it runs), a team
// member lists and opens only their teams' rollouts, and every step is audited with the team.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { createRolloutSchema } from "@/lib/domain/rollouts";
import type { Role } from "@/lib/domain/roles";
import { parseSelector } from "@/lib/domain/selector";
import type { TeamGrant } from "@/lib/domain/teams";
import type { Actor } from "@/lib/server/audit/record-audit";
import { authorize } from "@/lib/server/auth/authorize";
import type { Principal } from "@/lib/server/auth/principal";
import { db } from "@/lib/server/db/client";
import { actOnRollout } from "@/lib/server/rollouts/act-on-rollout";
import { createRollout } from "@/lib/server/rollouts/create-rollout";
import { listRollouts } from "@/lib/server/rollouts/list-rollouts";
import { planRollout } from "@/lib/server/rollouts/plan-rollout";
import { rolloutOwner } from "@/lib/server/rollouts/rollout-team";
import { tickRollout } from "@/lib/server/rollouts/tick-rollout";
import { teamsInReach } from "@/lib/server/teams/acting-team";
import { refusal } from "../helpers/api-refusal";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const teams = { payments: "", data: "" };

async function cluster(name: string, labels: Record<string, string>) {
  await db().cluster.create({
    data: {
      id: `c-${name}`,
      name,
      phase: "Active",
      status: "Ready",
      registeredAt: new Date(),
      lastHeartbeatAt: new Date(),
      apiServerHealth: "ok",
      agentVersion: "1.4.0",
      labels: { create: Object.entries(labels).map(([key, value]) => ({ key, value })) },
    },
  });
}

const grant = (team: keyof typeof teams, role: Role): TeamGrant => ({
  teamId: teams[team],
  team,
  role,
  selector: parseSelector(`team=${team}`),
});

function principal(label: string, role: Role | null, grants: TeamGrant[]): Principal {
  const actor: Actor = { type: "user", id: null, label };
  return { actor, role, teams: grants, via: "session", user: null };
}

/** What the route hands its service: the caller after the route's authorization, and the owner. */
async function asCaller(p: Principal, contract: typeof rolloutRoutes.plan | typeof rolloutRoutes.create, team?: string) {
  const { principal: allowed } = await authorize(contract, p, {});
  return rolloutOwner(allowed, team, contract);
}

const input = (over: Record<string, unknown>) =>
  createRolloutSchema.parse({
    name: "to 1.5.0",
    targetVersion: "1.5.0",
    stages: [{ name: "all", percent: 100 }],
    waitSeconds: 0,
    ...over,
  });

const fleetOperator = principal("fleet-op@example.com", "operator", []);
let payOperator: Principal;

describe(`team rollouts on ${testEngine()}`, () => {
  test("setup: two teams, their clusters and one in neither", async () => {
    for (const name of ["payments", "data"] as const)
      teams[name] = (await db().team.create({ data: { name, selector: `team=${name}` } })).id;
    await cluster("pay-1", { team: "payments", env: "prod" });
    await cluster("pay-2", { team: "payments", env: "prod" });
    await cluster("data-1", { team: "data", env: "prod" });
    await cluster("loose-1", { env: "prod" });
    payOperator = principal("pat@example.com", null, [grant("payments", "operator")]);
  });

  test("a team operator's plan counts only the team's clusters and says how many it left out", async () => {
    const owner = await asCaller(payOperator, rolloutRoutes.plan);
    assert.equal(owner.team?.team, "payments");
    const plan = await planRollout(input({ selector: "env=prod" }), owner.team);
    assert.equal(plan.clusters, 2);
    assert.equal(plan.planned, 2);
    assert.deepEqual(plan.stages, [{ name: "all", clusters: 2, upgrades: 2 }]);
    assert.deepEqual(plan.scope, { teamId: teams.payments, team: "payments", leftOut: 2 });

    // A fleet operator's plan of the same selector: the whole fleet, no scope.
    const fleet = await planRollout(input({ selector: "env=prod" }), (await asCaller(fleetOperator, rolloutRoutes.plan)).team);
    assert.equal(fleet.clusters, 4);
    assert.equal(fleet.scope, undefined);

    // A group is the fleet's: a team plans its members in scope only.
    const group = await db().clusterGroup.create({ data: { name: "prod", selector: "env=prod" } });
    const byGroup = await planRollout(input({ groupId: group.id }), owner.team);
    assert.deepEqual([byGroup.clusters, byGroup.scope?.leftOut], [2, 2]);

    // Explicit ids outside the scope read exactly as ids that do not exist.
    const outside = await refusal(planRollout(input({ clusterIds: ["c-pay-1", "c-data-1"] }), owner.team));
    const unknown = await refusal(planRollout(input({ clusterIds: ["c-pay-1", "c-nowhere"] }), owner.team));
    assert.equal(outside.code, "invalid_request");
    assert.equal(outside.message, unknown.message);
    // Nothing of the team's matches: refused, saying the matches are elsewhere.
    const none = await refusal(planRollout(input({ selector: "team=data" }), owner.team));
    assert.match(none.message, /No cluster in team payments's scope matches \(1 outside it do\)/);
  });

  test("the team is named when the caller operates in several, and only a team they operate", async () => {
    const both = principal("sam@example.com", null, [grant("data", "operator"), grant("payments", "operator")]);
    const unnamed = await refusal(asCaller(both, rolloutRoutes.plan));
    assert.equal(unnamed.code, "invalid_request");
    assert.match(unnamed.message, /Name the team this is for: you are operator in data, payments/);
    assert.equal((await asCaller(both, rolloutRoutes.plan, "data")).team?.teamId, teams.data);
    assert.equal((await asCaller(both, rolloutRoutes.plan, teams.payments)).team?.team, "payments");

    // A team they only view, and one that does not exist, read alike.
    const viewerThere = principal("lee@example.com", null, [grant("payments", "operator"), grant("data", "viewer")]);
    const viewed = await refusal(asCaller(viewerThere, rolloutRoutes.plan, "data"));
    const missing = await refusal(asCaller(viewerThere, rolloutRoutes.plan, "no-such-team"));
    assert.deepEqual([viewed.code, viewed.message], [missing.code, missing.message]);
    assert.equal(viewed.code, "not_found");
    // Planned through one team of several: the audit names that team, not the first one.
    const planner = await asCaller(both, rolloutRoutes.create, "payments");
    assert.deepEqual(planner.actor.allowedAs, { role: "operator", team: "payments" });
    // A team viewer is refused by the route itself.
    const viewer = principal("vic@example.com", null, [grant("payments", "viewer")]);
    assert.equal((await refusal(authorize(rolloutRoutes.create, viewer, {}))).code, "forbidden");
  });

  test("a team rollout never upgrades a cluster outside the scope: not one matching later, not one relabelled meanwhile", async () => {
    const owner = await asCaller(payOperator, rolloutRoutes.create);
    const rollout = await createRollout(owner.actor, input({ name: "payments to 1.5.0", selector: "env=prod" }), owner.team);
    assert.deepEqual(rollout.team, { id: teams.payments, name: "payments" });
    assert.deepEqual(rollout.clusters.map((c) => c.name).sort(), ["pay-1", "pay-2"]);
    assert.equal(rollout.totals.upgrading, 1, "the first tick starts pay-1");
    const created = await db().auditLog.findFirstOrThrow({ where: { action: "rollout.create", targetId: rollout.id } });
    assert.deepEqual([created.allowedRole, created.allowedTeam], ["operator", "payments"]);
    assert.equal((JSON.parse(created.details) as { leftOutOfScope: number }).leftOutOfScope, 2);

    // Meanwhile a cluster joins the scope, and pay-2 is moved to the data team (by a fleet admin).
    await cluster("pay-3", { team: "payments", env: "prod" });
    await db().clusterLabel.update({
      where: { clusterId_key: { clusterId: "c-pay-2", key: "team" } },
      data: { value: "data" },
    });
    // pay-1 comes back on the target: the next tick settles it and comes to pay-2's turn.
    const later = new Date(Date.now() + 5_000);
    await db().cluster.update({ where: { id: "c-pay-1" }, data: { agentVersion: "1.5.0", lastHeartbeatAt: later } });
    await db().cluster.updateMany({ data: { lastHeartbeatAt: later } });
    // Settled, pay-2's turn, then the stage finishes and the rollout completes.
    for (let i = 0; i < 4; i++) await tickRollout(rollout.id, later);

    const members = new Map(
      (await db().rolloutCluster.findMany({ where: { rolloutId: rollout.id } })).map((m) => [m.clusterId, m]),
    );
    assert.equal(members.get("c-pay-1")?.state, "Succeeded");
    assert.deepEqual(
      [members.get("c-pay-2")?.state, members.get("c-pay-2")?.error],
      ["Skipped", "outside team payments's scope at its turn"],
    );
    assert.equal(members.has("c-pay-3"), false, "a cluster matching later is not added");
    assert.equal((await db().rollout.findUniqueOrThrow({ where: { id: rollout.id } })).state, "Completed");
    const upgraded = (await db().directive.findMany({ where: { type: "upgrade" }, select: { clusterId: true } })).map(
      (d) => d.clusterId,
    );
    assert.deepEqual(upgraded, ["c-pay-1"], "only pay-1 was ever told to upgrade");
    assert.equal((await db().cluster.findUniqueOrThrow({ where: { id: "c-pay-2" } })).phase, "Active");
  });

  test("a team member lists only their teams' rollouts; a fleet role lists all, each team rollout naming its team", async () => {
    const fleet = await createRollout(
      fleetOperator.actor,
      input({ name: "fleet to 1.6.0", targetVersion: "1.6.0", selector: "env=prod" }),
    );
    await actOnRollout(fleetOperator.actor, fleet.id, { action: "abort" });
    const dataOwner = await asCaller(principal("dee@example.com", null, [grant("data", "operator")]), rolloutRoutes.create);
    const dataRollout = await createRollout(
      dataOwner.actor,
      input({ name: "data to 1.6.0", targetVersion: "1.6.0", selector: "team=data", requireApproval: true }),
      dataOwner.team,
    );
    assert.equal(dataRollout.team?.name, "data");

    const payViewer = principal("vic@example.com", null, [grant("payments", "viewer")]);
    const { scope } = await authorize(rolloutRoutes.list, payViewer, {});
    assert.ok(scope, "a team member's list is bounded");
    const theirs = await listRollouts(db(), teamsInReach(payViewer, scope, rolloutRoutes.list.role));
    assert.deepEqual(
      theirs.map((r) => r.name),
      ["payments to 1.5.0"],
    );
    const all = await listRollouts(db(), teamsInReach(fleetOperator, null, rolloutRoutes.list.role));
    assert.deepEqual(all.map((r) => [r.name, r.team?.name ?? null]).sort(), [
      ["data to 1.6.0", "data"],
      ["fleet to 1.6.0", null],
      ["payments to 1.5.0", "payments"],
    ]);
    assert.equal((await authorize(rolloutRoutes.list, fleetOperator, {})).scope, null);
  });

  test("another team's rollout, and the fleet's, read 404 like an unknown id; the own team's operator acts, audited with the team", async () => {
    const [pay, data, fleet] = await Promise.all(
      ["payments to 1.5.0", "data to 1.6.0", "fleet to 1.6.0"].map((name) => db().rollout.findFirstOrThrow({ where: { name } })),
    );
    const unknown = await refusal(authorize(rolloutRoutes.get, payOperator, { id: "no-such-rollout" }));
    assert.equal(unknown.code, "not_found");
    for (const id of [data!.id, fleet!.id])
      for (const contract of [rolloutRoutes.get, rolloutRoutes.act]) {
        const refused = await refusal(authorize(contract, payOperator, { id }));
        assert.deepEqual([refused.code, refused.message], [unknown.code, unknown.message]);
      }
    assert.ok(await authorize(rolloutRoutes.get, payOperator, { id: pay!.id }));

    // The data team's operator pauses, resumes and aborts their rollout; each row names the team.
    const dee = principal("dee@example.com", null, [grant("data", "operator")]);
    const { principal: allowed } = await authorize(rolloutRoutes.act, dee, { id: data!.id });
    assert.equal((await actOnRollout(allowed.actor, data!.id, { action: "pause", reason: "look first" })).state, "Paused");
    assert.equal((await actOnRollout(allowed.actor, data!.id, { action: "resume" })).state, "Running");
    assert.equal((await actOnRollout(allowed.actor, data!.id, { action: "abort", reason: "not today" })).state, "Aborted");
    const rows = await db().auditLog.findMany({
      where: { targetId: data!.id, action: { in: ["rollout.pause", "rollout.resume", "rollout.abort"] } },
      orderBy: { id: "asc" },
    });
    assert.deepEqual(
      rows.map((r) => [r.action, r.allowedRole, r.allowedTeam]),
      [
        ["rollout.pause", "operator", "data"],
        ["rollout.resume", "operator", "data"],
        ["rollout.abort", "operator", "data"],
      ],
    );
    // A team viewer of the owning team may read it but not act on it.
    const dataViewer = principal("val@example.com", null, [grant("data", "viewer")]);
    assert.ok(await authorize(rolloutRoutes.get, dataViewer, { id: data!.id }));
    assert.equal((await refusal(authorize(rolloutRoutes.act, dataViewer, { id: data!.id }))).code, "forbidden");
  });

  test("a team deleted while its rollout waits: the rollout starts nothing more", async () => {
    await cluster("gone-1", { team: "gone", env: "dev" });
    await cluster("gone-2", { team: "gone", env: "dev" });
    const gone = await db().team.create({ data: { name: "gone", selector: "team=gone" } });
    const owner = await rolloutOwner(fleetOperator, "gone", rolloutRoutes.create);
    assert.equal(owner.team?.teamId, gone.id, "a fleet operator may start a team's rollout by naming it");
    const rollout = await createRollout(owner.actor, input({ name: "gone to 1.5.0", selector: "env=dev" }), owner.team);
    assert.equal(rollout.totals.upgrading, 1);
    await db().team.delete({ where: { id: gone.id } });
    const later = new Date(Date.now() + 5_000);
    await db().cluster.updateMany({ where: { id: "c-gone-1" }, data: { agentVersion: "1.5.0", lastHeartbeatAt: later } });
    await db().cluster.updateMany({ where: { id: "c-gone-2" }, data: { lastHeartbeatAt: later } });
    await tickRollout(rollout.id, later);
    const second = await db().rolloutCluster.findUniqueOrThrow({
      where: { rolloutId_clusterId: { rolloutId: rollout.id, clusterId: "c-gone-2" } },
    });
    assert.deepEqual([second.state, second.error], ["Skipped", "its team was deleted"]);
    assert.equal(await db().directive.count({ where: { clusterId: "c-gone-2" } }), 0);
  });
});
