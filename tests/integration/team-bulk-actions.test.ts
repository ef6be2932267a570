// Bulk actions, the drain queue and saved views through a team, on the engine TEST_ENGINE picks:
// a team operator's bulk drain or pool retirement acts only on the team's clusters and counts what
// its filter matched beyond them; an id outside the scope reads exactly as an unknown one; for a
// team "the whole fleet" is its scope and the admin a guarded selection needs is the team's; the
// queue shows and cancels only the team's part of a batch; saved views belong to a team.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  bulkDeregistrationSchema,
  bulkRetireNodePoolSchema,
  type BulkDeregistrationInput,
  type BulkRetireNodePoolInput,
} from "@/lib/contracts/clusters";
import type { Role } from "@/lib/domain/roles";
import { parseSelector } from "@/lib/domain/selector";
import { scopeFor, type TeamGrant } from "@/lib/domain/teams";
import type { Actor } from "@/lib/server/audit/record-audit";
import { bulkLabelClusters } from "@/lib/server/clusters/bulk-label-clusters";
import { createSavedView, listSavedViews } from "@/lib/server/clusters/saved-views";
import { db } from "@/lib/server/db/client";
import { bulkStartDeregistration } from "@/lib/server/lifecycle/bulk-start-deregistration";
import { cancelDrainBatch, listDrainQueue, startDueDrains } from "@/lib/server/lifecycle/drain-queue";
import { bulkRetireNodePool } from "@/lib/server/node-pools/bulk-retire-node-pool";
import { updateSettings } from "@/lib/server/settings/settings";
import { addTeamMember, createTeam } from "@/lib/server/teams/teams";
import { refusal } from "../helpers/api-refusal";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const ADMIN: Actor = { type: "user", id: null, label: "admin@example.com", allowedAs: { role: "admin", team: null } };

async function cluster(name: string, labels: Record<string, string>, pools: string[] = []) {
  const made = await db().cluster.create({
    data: {
      id: `cl_${name}`,
      name,
      phase: "Active",
      registeredAt: new Date(),
      lastHeartbeatAt: new Date(),
      apiServerHealth: "ok",
      labels: { create: Object.entries(labels).map(([key, value]) => ({ key, value })) },
      nodePools: { create: pools.map((p) => ({ name: p, nodeCount: 2, readyNodes: 2 })) },
    },
  });
  return made.id;
}

const grant = (team: string, role: Role, teamId = `t-${team}`, scope = `team=${team}`): TeamGrant => ({
  teamId,
  team,
  role,
  selector: parseSelector(scope),
});

/** A caller as authorize.ts hands it over: team roles only (or a fleet role), and the scope a `clusters` route bounds it to. */
function caller(label: string, teams: TeamGrant[], fleetRole: Role | null = null) {
  const scope = scopeFor({ fleetRole, teams }, "operator");
  const first = teams.find((g) => g.role !== "viewer");
  const actor: Actor = {
    type: "user",
    id: null,
    label,
    allowedAs: scope ? { role: "operator", team: first?.team ?? null } : { role: fleetRole ?? "operator", team: null },
  };
  return { principal: { actor, role: fleetRole, teams }, scope };
}

const rmOperator = caller("ops@rm.example", [grant("rm", "operator")]);
const rmAdmin = caller("lead@rm.example", [grant("rm", "admin")]);
const fleetOperator = caller("ops@example.com", [], "operator");

const drain = (who: ReturnType<typeof caller>, body: BulkDeregistrationInput) =>
  bulkStartDeregistration(who.principal, bulkDeregistrationSchema.parse(body), who.scope);
const retire = (who: ReturnType<typeof caller>, body: BulkRetireNodePoolInput) =>
  bulkRetireNodePool(who.principal, bulkRetireNodePoolSchema.parse(body), who.scope);

const draining = async () =>
  (await db().deregistration.findMany({ select: { clusterId: true }, orderBy: { clusterId: "asc" } })).map((d) => d.clusterId);

const lastAudit = async (action: string) => {
  const row = await db().auditLog.findFirstOrThrow({ where: { action }, orderBy: { id: "desc" } });
  return { ...row, details: JSON.parse(row.details) as Record<string, unknown> };
};

describe(`bulk actions through a team on ${testEngine()}`, () => {
  test("a team operator's drain by a filter starts only the team's clusters and counts the rest as left out", async () => {
    await cluster("rm-a", { team: "rm", env: "dev" });
    await cluster("rm-b", { team: "rm", env: "dev" });
    await cluster("else-a", { team: "elsewhere", env: "dev" });
    await cluster("else-b", { team: "elsewhere", env: "dev" });
    await cluster("loose", { env: "dev" });
    await cluster("rm-z", { team: "rm", env: "qa" });

    const dry = await drain(rmOperator, { filter: { selector: "env=dev" }, dryRun: true });
    assert.equal(dry.matched, 2);
    assert.equal(dry.leftOut, 3, "the other team's two and the cluster in no team");
    assert.deepEqual(
      dry.results.map((r) => r.name),
      ["rm-a", "rm-b"],
    );
    assert.equal(dry.guard, null, "two of the team's three clusters");
    assert.doesNotMatch(JSON.stringify(dry), /else-|loose/, "what was left out is counted, never named");
    assert.equal((await drain(fleetOperator, { filter: { selector: "env=dev" }, dryRun: true })).leftOut, undefined);

    const done = await drain(rmOperator, { filter: { selector: "env=dev" }, reason: "moving", confirmCount: 2 });
    assert.equal(done.started, 2);
    assert.equal(done.leftOut, 3);
    assert.deepEqual(await draining(), ["cl_rm-a", "cl_rm-b"]);
    const bulk = await lastAudit("cluster.deregistration.bulk_start");
    assert.deepEqual([bulk.allowedRole, bulk.allowedTeam], ["operator", "rm"]);
    assert.equal(bulk.details.leftOutOfScope, 3);
    const start = await lastAudit("deregistration.start");
    assert.deepEqual([start.allowedRole, start.allowedTeam], ["operator", "rm"], "each start says under which team");

    // The count a team confirms is its own: the fleet's would be refused.
    assert.equal(
      (await refusal(drain(rmOperator, { filter: { selector: "env=dev" }, reason: "again", confirmCount: 5 }))).code,
      "count_changed",
    );
  });

  test("an id outside the scope reads exactly as an unknown id and is never acted on", async () => {
    await cluster("rm-c", { team: "rm", env: "qa" });
    const body = { ids: ["cl_else-a", "cl_nope", "cl_rm-c"] };
    const dry = await drain(rmOperator, { ...body, dryRun: true });
    assert.equal(dry.matched, 1);
    assert.equal(dry.leftOut, 0, "picked ids are not counted as left out: that would tell they exist");
    const byId = Object.fromEntries(dry.results.map((r) => [r.id, r]));
    assert.equal(byId["cl_rm-c"]!.ok, true);
    const outside = { ...byId["cl_else-a"]!, id: "" };
    const unknown = { ...byId["cl_nope"]!, id: "" };
    assert.equal(outside.error, "not_found");
    assert.deepEqual({ ...outside, name: "" }, { ...unknown, name: "" }, "the same answer, word for word");
    assert.equal(byId["cl_else-a"]!.name, "cl_else-a", "named by the id sent, not the cluster's name");

    const done = await drain(rmOperator, { ...body, reason: "qa is done", confirmCount: 1 });
    assert.equal(done.started, 1);
    assert.equal((await draining()).includes("cl_else-a"), false);
    assert.ok((await draining()).includes("cl_rm-c"));

    // Bulk labels drop an id outside the scope as an unknown one too, and count nothing for it.
    const labelled = await bulkLabelClusters(
      rmOperator.principal.actor,
      { ids: ["cl_else-b", "cl_rm-c"], set: { tier: "gold" }, remove: [], dryRun: false },
      rmOperator.scope,
    );
    assert.deepEqual(
      labelled.rows.map((r) => r.name),
      ["rm-c"],
    );
    assert.equal(labelled.leftOut, 0);
    assert.equal(await db().clusterLabel.count({ where: { clusterId: "cl_else-b", key: "tier" } }), 0);
  });

  test("a team's pool retirement by a filter retires only on its clusters", async () => {
    await cluster("rm-pool", { team: "rm", env: "lab" }, ["spot", "general"]);
    await cluster("else-pool", { team: "elsewhere", env: "lab" }, ["spot", "general"]);
    const dry = await retire(rmOperator, { filter: { selector: "env=lab" }, pool: "spot", dryRun: true });
    assert.deepEqual(
      { matched: dry.matched, leftOut: dry.leftOut, started: dry.started },
      { matched: 1, leftOut: 1, started: 1 },
    );
    const done = await retire(rmOperator, {
      filter: { selector: "env=lab" },
      pool: "spot",
      reason: "spot is gone",
      confirmCount: 1,
    });
    assert.equal(done.started, 1);
    assert.equal(done.leftOut, 1);
    const state = async (clusterId: string) =>
      (await db().nodePool.findFirstOrThrow({ where: { clusterId, name: "spot" } })).state;
    assert.equal(await state("cl_rm-pool"), "Retiring");
    assert.equal(await state("cl_else-pool"), "Active", "the other team's pool is untouched");
    const audit = await lastAudit("nodePool.bulk_retire");
    assert.deepEqual([audit.allowedTeam, audit.details.leftOutOfScope], ["rm", 1]);
  });

  test("for a team the whole fleet is its scope, and only its admin confirms a guarded selection", async () => {
    const rmClusters = await db().clusterLabel.count({ where: { key: "team", value: "rm" } });
    const all = { filter: { selector: "team=rm" } };
    const dry = await drain(rmOperator, { ...all, dryRun: true });
    assert.deepEqual(dry.guard, {
      reasons: ["wholeFleet"],
      production: 0,
      fleet: rmClusters,
      phrase: `drain all ${rmClusters} clusters`,
      withinTeams: true,
      confirmable: false,
    });
    assert.equal((await drain(rmAdmin, { ...all, dryRun: true })).guard?.confirmable, true);
    assert.equal(
      (await drain(fleetOperator, { ...all, dryRun: true })).guard,
      null,
      "for a fleet role the same selection is a part of the fleet",
    );
    const refused = await refusal(
      drain(rmOperator, { ...all, reason: "all of ours", confirmCount: rmClusters, confirmPhrase: dry.guard!.phrase }),
    );
    assert.equal(refused.code, "admin_required");
    assert.match(refused.message, /every cluster of your teams/);
    assert.match(refused.message, /operator in team rm/);

    // Production needs the team's admin as well; a team admin's confirmation is audited as the team's admin.
    await cluster("rm-prod", { team: "rm", env: "prod" });
    const prod = { ids: ["cl_rm-prod"] };
    const guarded = await drain(rmOperator, { ...prod, dryRun: true });
    assert.deepEqual(guarded.guard?.reasons, ["production"]);
    assert.equal(
      (await refusal(drain(rmOperator, { ...prod, reason: "r", confirmCount: 1, confirmPhrase: guarded.guard!.phrase }))).code,
      "admin_required",
    );
    const done = await drain(rmAdmin, {
      ...prod,
      reason: "retiring prod",
      confirmCount: 1,
      confirmPhrase: guarded.guard!.phrase,
    });
    assert.equal(done.started, 1);
    const audit = await lastAudit("cluster.deregistration.bulk_start");
    assert.deepEqual([audit.allowedRole, audit.allowedTeam], ["admin", "rm"]);
    assert.deepEqual(audit.details.guard, { reasons: ["production"], production: 1, fleet: rmClusters + 1, withinTeams: true });

    const empty = await refusal(drain(rmOperator, { filter: {}, dryRun: true }));
    assert.equal(empty.code, "filter_required");
    assert.match(empty.message, /every cluster of your teams/);
  });
});

describe(`the drain queue through a team on ${testEngine()}`, () => {
  test("a team sees and cancels only its part of a batch; a batch of none of its clusters reads as unknown", async () => {
    await updateSettings(ADMIN, { drainStartsPerMinute: 1 });
    for (const [name, team] of [
      ["qa-else", "elsewhere"],
      ["qb-rm", "rm"],
      ["qc-else", "elsewhere"],
      ["qd-rm", "rm"],
      ["qe-rm", "rm"],
      ["qf-else", "elsewhere"],
      ["qg-else", "elsewhere"],
    ])
      await cluster(name!, { team: team!, queue: name!.slice(0, 2) === "qf" || name!.slice(0, 2) === "qg" ? "two" : "one" });
    const before = Date.now();
    const one = await drain(fleetOperator, { filter: { selector: "queue=one" }, reason: "wave one", confirmCount: 5 });
    const two = await drain(fleetOperator, { filter: { selector: "queue=two" }, reason: "wave two", confirmCount: 2 });
    assert.equal(one.queued, 4);
    assert.equal(two.queued, 1);

    const fleet = await listDrainQueue();
    assert.deepEqual(
      fleet.batches.map((b) => [b.batchId, b.queued]),
      [
        [one.batchId, 4],
        [two.batchId, 1],
      ],
    );
    const mine = await listDrainQueue(rmOperator.scope);
    assert.equal(mine.batches.length, 1, "the batch of only the other team's clusters is not listed");
    const part = mine.batches[0]!;
    assert.deepEqual(
      [part.batchId, part.queued, part.by, part.reason],
      [one.batchId, 3, fleetOperator.principal.actor.label, "wave one"],
    );
    const minute = (iso: string) => Math.round((Date.parse(iso) - before) / 60_000);
    assert.deepEqual([minute(part.nextAt), minute(part.lastAt)], [1, 4], "the times of its own clusters' turns");

    const unknown = await refusal(cancelDrainBatch(rmOperator.principal.actor, "no-such-batch", rmOperator.scope));
    const outside = await refusal(cancelDrainBatch(rmOperator.principal.actor, two.batchId!, rmOperator.scope));
    assert.deepEqual([outside.code, outside.message], [unknown.code, unknown.message]);
    assert.equal(unknown.status, 404);

    assert.deepEqual(await cancelDrainBatch(rmOperator.principal.actor, one.batchId!, rmOperator.scope), { cancelled: 3 });
    const left = await db().queuedDrain.findMany({ select: { clusterId: true }, orderBy: { clusterId: "asc" } });
    assert.deepEqual(
      left.map((q) => q.clusterId),
      ["cl_qc-else", "cl_qg-else"],
      "the other team's drains wait on",
    );
    const audit = await lastAudit("cluster.deregistration.queue_cancel");
    assert.deepEqual([audit.allowedTeam, audit.details.cancelled, audit.details.leftOutOfScope], ["rm", 3, 1]);
    assert.equal(
      (await refusal(cancelDrainBatch(rmOperator.principal.actor, one.batchId!, rmOperator.scope))).code,
      "not_found",
      "nothing of the team's waits any more",
    );
    assert.deepEqual(await cancelDrainBatch(ADMIN, one.batchId!), { cancelled: 1 }, "a fleet role cancels the rest");
    assert.deepEqual(await cancelDrainBatch(ADMIN, two.batchId!), { cancelled: 1 });
  });

  test("a queued drain starts under its confirmer's team, and not once its cluster has left the team's scope", async () => {
    const team = await createTeam(ADMIN, { name: "rm-queue", selector: "team=rm" });
    const user = await db().user.create({ data: { email: "queue@rm.example", role: "none" } });
    await addTeamMember(ADMIN, team.id, { user: user.id, role: "operator" });
    const member = caller(user.email, [grant("rm-queue", "operator", team.id, "team=rm")]);
    member.principal.actor.id = user.id;
    for (const name of ["qh-rm", "qi-rm", "qj-rm"]) await cluster(name, { team: "rm", queue: "three" });
    const before = Date.now();
    const done = await drain(member, { filter: { selector: "queue=three" }, reason: "wave three", confirmCount: 3 });
    assert.deepEqual([done.started, done.queued], [1, 2]);

    // A fleet admin moves one out of the team's scope before its turn.
    await db().clusterLabel.updateMany({ where: { clusterId: "cl_qi-rm", key: "team" }, data: { value: "elsewhere" } });
    assert.equal(await startDueDrains(new Date(before + 3 * 60_000)), 1);
    assert.equal((await draining()).includes("cl_qi-rm"), false, "out of the scope: never started");
    assert.ok((await draining()).includes("cl_qj-rm"));
    const skipped = await lastAudit("cluster.deregistration.queued_skipped");
    assert.deepEqual([skipped.targetId, skipped.details.error], ["cl_qi-rm", "not_found"]);
    const started = await db().auditLog.findFirstOrThrow({ where: { action: "deregistration.start", targetId: "cl_qj-rm" } });
    assert.deepEqual(
      [started.actorLabel, started.allowedRole, started.allowedTeam],
      [user.email, "operator", "rm-queue"],
      "started as the person who confirmed it, under their team",
    );
  });
});

describe(`saved views through a team on ${testEngine()}`, () => {
  test("a team member saves and sees their team's views; the fleet's stay the fleet roles'", async () => {
    const rm = await createTeam(ADMIN, { name: "rm", selector: "team=rm" });
    const other = await createTeam(ADMIN, { name: "elsewhere", selector: "team=elsewhere" });
    const rmOp = caller("ops@rm.example", [grant("rm", "operator", rm.id)]).principal;
    const rmViewer = caller("viewer@rm.example", [grant("rm", "viewer", rm.id)]).principal;
    const both = caller("ops@both.example", [grant("elsewhere", "operator", other.id), grant("rm", "operator", rm.id)]).principal;
    const fleetViewer = caller("viewer@example.com", [], "viewer").principal;

    const fleetView = await createSavedView(fleetOperator.principal, { name: "fleet ready", query: "status=Ready" });
    assert.equal(fleetView.team, null);
    const rmView = await createSavedView(rmOp, { name: "rm dev", query: "selector=env%3Ddev" });
    assert.equal(rmView.team, "rm");
    assert.equal((await db().savedView.findUniqueOrThrow({ where: { id: rmView.id } })).teamId, rm.id);
    const created = await lastAudit("view.create");
    assert.deepEqual([created.allowedRole, created.allowedTeam, created.details.team], ["operator", "rm", "rm"]);

    const ambiguous = await refusal(createSavedView(both, { name: "which", query: "" }));
    assert.equal(ambiguous.code, "invalid_request");
    assert.match(ambiguous.message, /elsewhere, rm/);
    assert.equal((await createSavedView(both, { name: "else lab", query: "", team: "elsewhere" })).team, "elsewhere");
    assert.equal((await refusal(createSavedView(rmViewer, { name: "v", query: "", team: "rm" }))).code, "forbidden");
    assert.equal((await refusal(createSavedView(rmViewer, { name: "v", query: "" }))).code, "forbidden");
    assert.equal((await refusal(createSavedView(rmOp, { name: "v", query: "", team: "elsewhere" }))).code, "not_found");

    const names = async (who: Parameters<typeof listSavedViews>[0]) => (await listSavedViews(who)).items.map((v) => v.name);
    assert.deepEqual(await names(rmViewer), ["rm dev"], "a team-only member sees their team's, not the fleet's");
    assert.deepEqual(await names(both), ["else lab", "rm dev"]);
    assert.deepEqual(await names(fleetViewer), ["fleet ready"], "a fleet role sees the fleet's, not a team's");
    assert.deepEqual(
      await names({ ...fleetViewer, teams: [grant("rm", "viewer", rm.id)] }),
      ["fleet ready", "rm dev"],
      "and its own teams' besides",
    );

    // Names are unique across the fleet: a name another team holds is refused in the same words as one's own.
    const taken = await refusal(createSavedView(rmOp, { name: "else lab", query: "" }));
    const own = await refusal(createSavedView(rmOp, { name: "rm dev", query: "" }));
    assert.equal(taken.code, "conflict");
    assert.equal(taken.message.replace("else lab", "X"), own.message.replace("rm dev", "X"));
  });
});
