// Webhook subscriptions a team owns, on the engine TEST_ENGINE picks: a team admin makes them for
// a team they administer (and no other), lists and manages only their teams' own, every change
// audited under the team; a team's subscription is sent only the events of clusters (and
// registration requests) its team's scope takes in when the event is enqueued, ANDed with its own
// selector, and never an event that carries no labels. The delivery job posts to a loopback
// receiver, so what is checked is what each receiver got.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { webhookRoutes } from "@/lib/contracts/webhooks";
import { parseSelector } from "@/lib/domain/selector";
import { webhookCreateSchema, webhookPatchSchema, type WebhookPayload } from "@/lib/domain/webhooks";
import { SYSTEM_ACTOR, type Actor } from "@/lib/server/audit/record-audit";
import { authorize } from "@/lib/server/auth/authorize";
import type { Principal } from "@/lib/server/auth/principal";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { updateSettings } from "@/lib/server/settings/settings";
import { createTeam, deleteTeam, updateTeam } from "@/lib/server/teams/teams";
import { actingTeam, actorFor, teamsInReach } from "@/lib/server/teams/acting-team";
import { deliverDueWebhooks } from "@/lib/server/webhooks/deliver-webhooks";
import { enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";
import { createWebhook, listWebhooks, updateWebhook } from "@/lib/server/webhooks/subscriptions";
import { appDatabase } from "../helpers/app-database";
import { refusal } from "../helpers/api-refusal";
import { testEngine } from "../helpers/test-database";
import { startReceiver } from "../helpers/webhook-receiver";
import { notReady, queued, seedCluster } from "../helpers/webhook-outbox";

appDatabase();

const ADMIN: Actor = { type: "user", id: null, label: "admin@example.com", allowedAs: { role: "admin", team: null } };
const FLEET_ADMIN: Principal = { actor: ADMIN, role: "admin", teams: [], via: "session", user: null };

let payments = { id: "", name: "payments" };
let data = { id: "", name: "data" };

function member(role: "viewer" | "operator" | "admin", team = payments, selector = "team=payments"): Principal {
  return {
    actor: { type: "user", id: null, label: `${team.name}-${role}@example.com` },
    role: null,
    teams: [{ teamId: team.id, team: team.name, role, selector: parseSelector(selector) }],
    via: "session",
    user: null,
  };
}

/** A team admin's create, as the route does it: the owning team checked, then the subscription. */
async function createAs(who: Principal, body: Record<string, unknown>) {
  const input = webhookCreateSchema.parse(body);
  const team = await actingTeam(who, input.team, webhookRoutes.create);
  return createWebhook(actorFor(who, team, webhookRoutes.create), input, team && { id: team.teamId, name: team.team });
}

const EVENTS = ["cluster.notReady", "cluster.removed", "registration.pendingApproval", "rollout.failed"];

describe(`webhook subscriptions owned by teams on ${testEngine()}`, () => {
  test("a team admin makes one for a team they administer, and only that; it is audited under the team", async () => {
    await updateSettings(SYSTEM_ACTOR, { webhookAllowPrivateTargets: true });
    payments = await createTeam(ADMIN, { name: "payments", selector: "team=payments" });
    data = await createTeam(ADMIN, { name: "data", selector: "team=data" });
    const admin = member("admin");

    const made = await createAs(admin, { url: "http://127.0.0.1:9/pay", events: EVENTS, team: "payments" });
    assert.deepEqual(made.team, { id: payments.id, name: "payments" });
    assert.equal((await db().webhookSubscription.findUniqueOrThrow({ where: { id: made.id } })).teamId, payments.id);
    const byId = await createAs(admin, { url: "http://127.0.0.1:9/pay2", events: ["cluster.ready"], team: payments.id });
    assert.equal(byId.team!.name, "payments", "named by id as well");
    const [entry] = await db().auditLog.findMany({ where: { action: "webhook.create", targetId: made.id } });
    assert.deepEqual([entry!.allowedRole, entry!.allowedTeam], ["admin", "payments"]);
    assert.equal((JSON.parse(entry!.details) as { team?: string }).team, "payments");

    // Without the fleet admin role: their one team where they are admin, else the one they name;
    // a team not theirs (or where they are no admin) reads as no such team.
    assert.equal((await createAs(admin, { url: "http://127.0.0.1:9/one", events: EVENTS })).team!.name, "payments");
    const twoTeams: Principal = { ...admin, teams: [...admin.teams, ...member("admin", data, "team=data").teams] };
    const unnamed = await refusal(createAs(twoTeams, { url: "http://127.0.0.1:9/x", events: EVENTS }));
    assert.equal(unnamed.code, "invalid_request");
    assert.match(unnamed.message, /Name the team/);
    const other = await refusal(createAs(admin, { url: "http://127.0.0.1:9/x", events: EVENTS, team: "data" }));
    const unknown = await refusal(createAs(admin, { url: "http://127.0.0.1:9/x", events: EVENTS, team: "no-such-team" }));
    assert.equal(other.code, "not_found");
    assert.equal(other.message, unknown.message);
    const operator = await refusal(
      createAs(member("operator"), { url: "http://127.0.0.1:9/x", events: EVENTS, team: "payments" }),
    );
    assert.deepEqual([operator.code, operator.message], [unknown.code, unknown.message]);
    // Events about the whole fleet would never reach a team's subscription: refused, on create and on change.
    const fleetEvents = await refusal(
      createAs(admin, { url: "http://127.0.0.1:9/x", events: ["cluster.ready", "rollout.paused"], team: "payments" }),
    );
    assert.equal(fleetEvents.code, "invalid_request");
    assert.match(fleetEvents.message, /rollout\.paused/);
    assert.equal(
      (await refusal(updateWebhook(ADMIN, made.id, webhookPatchSchema.parse({ events: ["registration.failureRate"] })))).code,
      "invalid_request",
    );
    // A fleet admin may make one for any team, or the fleet's own.
    const forData = await createAs(FLEET_ADMIN, { url: "http://127.0.0.1:9/data", events: EVENTS, team: "data" });
    assert.deepEqual(forData.team, { id: data.id, name: "data" });
    assert.equal((await createAs(FLEET_ADMIN, { url: "http://127.0.0.1:9/fleet", events: EVENTS })).team, null);
    assert.equal(
      (await refusal(createAs(FLEET_ADMIN, { url: "http://127.0.0.1:9/x", events: EVENTS, team: "nope" }))).code,
      "not_found",
    );
    await db().webhookSubscription.deleteMany({});
  });

  test("a team admin lists and manages only their teams' subscriptions; another's reads as an unknown id", async () => {
    const admin = member("admin");
    const own = await createAs(admin, { url: "http://127.0.0.1:9/own", events: EVENTS, team: "payments" });
    const theirs = await createAs(FLEET_ADMIN, { url: "http://127.0.0.1:9/theirs", events: EVENTS, team: "data" });
    const fleet = await createAs(FLEET_ADMIN, { url: "http://127.0.0.1:9/fleet", events: EVENTS });

    const list = await authorize(webhookRoutes.list, admin, {});
    assert.ok(list.scope, "a team admin's list is bounded");
    const items = await listWebhooks(teamsInReach(list.principal, list.scope, "admin"));
    assert.deepEqual(
      items.map((w) => w.id),
      [own.id],
    );
    assert.equal((await listWebhooks(null)).length, 3, "a fleet admin sees them all");
    assert.equal((await refusal(authorize(webhookRoutes.list, member("operator"), {}))).code, "forbidden");

    for (const contract of [webhookRoutes.get, webhookRoutes.update, webhookRoutes.remove, webhookRoutes.deliveries]) {
      const mine = await authorize(contract, admin, { id: own.id });
      assert.deepEqual(mine.principal.actor.allowedAs, { role: "admin", team: "payments" });
      const unknown = await refusal(authorize(contract, admin, { id: "no-such-webhook" }));
      for (const id of [theirs.id, fleet.id]) {
        const outside = await refusal(authorize(contract, admin, { id }));
        assert.deepEqual([outside.code, outside.message], [unknown.code, unknown.message], `${contract.method} ${contract.path}`);
      }
      assert.equal((await refusal(authorize(contract, member("operator"), { id: own.id }))).code, "forbidden");
    }
    await db().webhookSubscription.deleteMany({});
  });

  test("a team's subscription gets the events of its team's clusters only, at the time of the event, and never unlabelled ones", async () => {
    await seedCluster("cl_pay", { team: "payments", env: "prod" });
    await seedCluster("cl_pay_dev", { team: "payments", env: "dev" });
    await seedCluster("cl_data", { team: "data", env: "prod" });
    const receiver = await startReceiver();
    try {
      const admin = member("admin");
      const team = await createAs(admin, { url: `${receiver.origin}/team`, events: EVENTS, team: "payments" });
      // Its own selector narrows within the team's scope; it never widens it.
      const teamProd = await createAs(admin, {
        url: `${receiver.origin}/team-prod`,
        events: EVENTS,
        team: "payments",
        selector: "env=prod",
      });
      const fleet = await createAs(FLEET_ADMIN, { url: `${receiver.origin}/fleet`, events: EVENTS });

      for (const id of ["cl_pay", "cl_pay_dev", "cl_data"]) await notReady(id);
      // A rollout's failure without a cluster carries no labels: the fleet's only.
      await inTransaction((tx) =>
        enqueueWebhookEvent(tx, { type: "rollout.failed", data: { rolloutName: "r1" }, occurredAt: new Date() }),
      );
      // A registration request's labels decide as a cluster's do.
      for (const [name, labels] of [
        ["req-pay", { team: "payments" }],
        ["req-data", { team: "data" }],
      ] as const) {
        await inTransaction((tx) =>
          enqueueWebhookEvent(tx, {
            type: "registration.pendingApproval",
            labels,
            data: { name, labels },
            occurredAt: new Date(),
          }),
        );
      }
      assert.deepEqual(await queued(team.id), [
        "cluster.notReady:cl_pay",
        "cluster.notReady:cl_pay_dev",
        "registration.pendingApproval:fleet",
      ]);
      assert.deepEqual(await queued(teamProd.id), ["cluster.notReady:cl_pay"]);
      assert.equal((await queued(fleet.id)).length, 6, "the fleet's hears of everything");

      // The labels and the team's scope when the event is enqueued decide: a cluster relabelled
      // into the scope is the team's from its next event, and a scope changed takes effect at once.
      await db().clusterLabel.update({
        where: { clusterId_key: { clusterId: "cl_data", key: "team" } },
        data: { value: "payments" },
      });
      await notReady("cl_data");
      assert.equal((await queued(team.id)).at(-1), "cluster.notReady:cl_data");
      await updateTeam(ADMIN, payments.id, { selector: "team=payments,env=dev" });
      await notReady("cl_pay");
      await notReady("cl_pay_dev");
      assert.equal((await queued(team.id)).at(-1), "cluster.notReady:cl_pay_dev");
      assert.ok(!(await queued(team.id)).slice(-2).includes("cluster.notReady:cl_pay"), "cl_pay left the scope");

      // Delivered (NotReady's hold cut short): the receiver got exactly what was queued for it.
      await db().webhookDelivery.updateMany({
        where: { state: "pending" },
        data: { nextAttemptAt: new Date(Date.now() - 1000) },
      });
      while ((await deliverDueWebhooks()) > 0);
      const got = (path: string) =>
        receiver.received
          .filter((r) => r.path === path)
          .map((r) => JSON.parse(r.body) as WebhookPayload)
          .map((p) => `${p.type}:${p.cluster?.id ?? String(p.data.name ?? p.data.rolloutName)}`);
      assert.deepEqual(got("/team").sort(), [
        "cluster.notReady:cl_data",
        "cluster.notReady:cl_pay",
        "cluster.notReady:cl_pay_dev",
        "cluster.notReady:cl_pay_dev",
        "registration.pendingApproval:req-pay",
      ]);
      assert.ok(got("/fleet").includes("rollout.failed:r1"));

      // A team deleted: its subscriptions hear of nothing.
      await deleteTeam(ADMIN, payments.id, {});
      await notReady("cl_pay_dev");
      assert.equal((await queued(team.id)).length, 5);
      assert.equal((await queued(fleet.id)).at(-1), "cluster.notReady:cl_pay_dev");
    } finally {
      await receiver.close();
    }
  });
});
