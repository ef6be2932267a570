// Approvals scoped by labels, on the engine TEST_ENGINE picks: a team operator sees, counts and
// decides only the registration requests whose labels their team's scope takes in. One outside it
// reads exactly as one that does not exist (by id, by name, in a bulk decision) and is never
// decided; a decision by name weighs only the requests in scope; an approval creates the cluster
// with the request's own labels, inside the scope. Each call goes through the authorization step
// the route runs (lib/server/auth/authorize.ts) and then the service, as the handler does.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { registrationRequestRoutes, registrationRequestsQuerySchema } from "@/lib/contracts/registration-requests";
import type { RouteContract } from "@/lib/contracts/route";
import { parseSelector } from "@/lib/domain/selector";
import { type ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { authorize } from "@/lib/server/auth/authorize";
import type { Principal } from "@/lib/server/auth/principal";
import { db } from "@/lib/server/db/client";
import { countPending } from "@/lib/server/registration-requests/pending-count";
import { approveRequest, decideRequests, denyRequest } from "@/lib/server/registration-requests/decide-request";
import { getRequest, listRequests } from "@/lib/server/registration-requests/list-requests";
import { registerCluster, type RegisterResult } from "@/lib/server/registration/register-cluster";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { registrationBody } from "../helpers/agent-client";
import { appDatabase } from "../helpers/app-database";
import { csrForKey, makeKey } from "../helpers/csr";
import { refusal } from "../helpers/api-refusal";
import { testEngine } from "../helpers/test-database";

appDatabase();

const ADMIN: Actor = { type: "user", id: null, label: "admin@example.com", allowedAs: { role: "admin", team: null } };

const grant = (role: "viewer" | "operator") => ({
  teamId: "t-payments",
  team: "payments",
  role,
  selector: parseSelector("team=payments"),
});

function teamMember(role: "viewer" | "operator"): Principal {
  return {
    actor: { type: "user", id: null, label: `pay-${role}@example.com` },
    role: null,
    teams: [grant(role)],
    via: "session",
    user: null,
  };
}
const OPERATOR = teamMember("operator");
/** A fleet viewer who operates the payments team: below the route's role across the fleet. */
const FLEET_VIEWER_TEAM_OPERATOR: Principal = { ...teamMember("operator"), role: "viewer" };

// region: a label every cluster must carry (the fleet's default required labels).
const IN = { team: "payments", env: "prod", region: "eu" };
const OUT = { team: "data", env: "prod", region: "eu" };

let token = "";
async function pending(name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): Promise<string> {
  if (!token)
    token = (await mintToken(ADMIN, { name: "approval", ttlSeconds: 3600, maxClusters: 100, requireApproval: true })).token;
  const { body } = registrationBody(name, { csr: csrForKey(makeKey().privateKeyPem), labels, ...extra });
  const r: RegisterResult = await registerCluster(token, body, { sourceAddress: "203.0.113.7" });
  assert.equal(r.kind, "pending", JSON.stringify(r));
  return (r as Extract<RegisterResult, { kind: "pending" }>).reply.requestId;
}

/** What the route's authorization step grants this caller for this path. */
const allowedAs = (contract: RouteContract, who: Principal, id = "") => authorize(contract, who, id ? { id } : {});

/** The error a refusal answers with, as the API writes it. */
const said = (err: ApiError) => ({ code: err.code, message: err.message, details: err.details });

const query = (q: Record<string, unknown>) => registrationRequestsQuerySchema.parse(q);
const stateOf = async (id: string) => (await db().registrationRequest.findUniqueOrThrow({ where: { id } })).state;

describe(`approvals scoped by a team's labels on ${testEngine()}`, () => {
  test("a team operator's queue, its pages and its pending count hold only the requests in scope", async () => {
    const inside = [await pending("pay-a", IN), await pending("pay-b", IN), await pending("pay-c", { ...IN, env: "dev" })];
    const outside = [
      await pending("data-a", OUT),
      await pending("data-b", OUT),
      await pending("no-team", { env: "prod", region: "eu" }),
    ];
    const { scope } = await allowedAs(registrationRequestRoutes.list, OPERATOR);
    assert.deepEqual(scope, [parseSelector("team=payments")]);

    const list = await listRequests(query({ state: "pending" }), scope);
    assert.deepEqual(list.items.map((r) => r.id).sort(), [...inside].sort());
    assert.equal(list.pending, 3, "the badge counts the team's requests only");
    assert.equal(await countPending(scope), 3);
    assert.equal(await countPending(null), 6, "the fleet's count is every pending request");
    assert.equal((await listRequests(query({ state: "pending" }), null)).items.length, 6);

    // Paging: pages of two, then one, then none; nothing outside the scope on any of them.
    const first = await listRequests(query({ state: "pending", limit: 2 }), scope);
    assert.equal(first.items.length, 2);
    assert.ok(first.nextCursor);
    const second = await listRequests(query({ state: "pending", limit: 2, cursor: first.nextCursor }), scope);
    assert.deepEqual([...first.items, ...second.items].map((r) => r.id).sort(), [...inside].sort());
    assert.equal(second.nextCursor, null);

    // A selector narrows within the scope; it never reaches past it.
    const prod = await listRequests(query({ state: "pending", selector: "env=prod" }), scope);
    assert.deepEqual(prod.items.map((r) => r.name).sort(), ["pay-a", "pay-b"]);
    const theirs = await listRequests(query({ state: "pending", selector: "team=data" }), scope);
    assert.deepEqual(theirs.items, []);
    const byName = await listRequests(query({ name: "data-a" }), scope);
    assert.deepEqual(byName.items, []);

    // A team member without a team scope at the route's role is refused; no team scope at all sees nothing.
    assert.equal((await refusal(allowedAs(registrationRequestRoutes.list, teamMember("viewer")))).code, "forbidden");
    assert.deepEqual((await listRequests(query({ state: "pending" }), [])).items, []);
    assert.equal(await countPending([]), 0);
    // A fleet viewer who operates a team is bounded by the team, not shown the fleet.
    const mixed = await allowedAs(registrationRequestRoutes.list, FLEET_VIEWER_TEAM_OPERATOR);
    assert.equal((await listRequests(query({ state: "pending" }), mixed.scope)).pending, 3);

    for (const id of outside) assert.equal(await stateOf(id), "pending");
  });

  test("deciding one outside the scope, by id or by name, reads 404 exactly as an unknown one, and decides nothing", async () => {
    const outside = await pending("data-decide", OUT);
    for (const contract of [registrationRequestRoutes.get, registrationRequestRoutes.approve, registrationRequestRoutes.deny]) {
      const unknownId = said(await refusal(allowedAs(contract, OPERATOR, "rr_no-such-request")));
      const outsideId = said(await refusal(allowedAs(contract, OPERATOR, outside)));
      assert.equal(outsideId.code, "not_found");
      assert.deepEqual(outsideId, unknownId, `${contract.path} by id`);
      // A name that nothing in scope waits under reads as a name nothing waits under.
      const unknownName = said(await refusal(allowedAs(contract, OPERATOR, "no-such-name")));
      const outsideName = said(await refusal(allowedAs(contract, OPERATOR, "data-decide")));
      assert.equal(outsideName.code, "not_found");
      assert.deepEqual(outsideName, { ...unknownName, message: unknownName.message.replace("no-such-name", "data-decide") });
    }
    // The services say the same should a caller reach them with the scope (the route's second line).
    const scope = [parseSelector("team=payments")];
    const unknown = said(await refusal(approveRequest(OPERATOR.actor, "rr_no-such-request", scope)));
    assert.deepEqual(said(await refusal(approveRequest(OPERATOR.actor, outside, scope))), unknown);
    assert.deepEqual(said(await refusal(denyRequest(OPERATOR.actor, outside, "no", scope))), unknown);
    assert.deepEqual(said(await refusal(getRequest(outside, scope))), unknown);
    assert.equal(
      (await refusal(approveRequest(OPERATOR.actor, "data-decide", scope))).message,
      "No registration request for the name data-decide is waiting for a decision.",
    );
    assert.equal(await stateOf(outside), "pending", "never decided");
    assert.equal(await db().cluster.count({ where: { name: "data-decide" } }), 0);
  });

  test("a bulk decision decides the requests in scope; those outside fail as unknown ones do, and stay pending", async () => {
    const [a, b] = [await pending("pay-bulk-a", IN), await pending("pay-bulk-b", IN)];
    const outside = await pending("data-bulk", OUT);
    const { principal, scope } = await allowedAs(registrationRequestRoutes.decide, OPERATOR);
    const denied = await decideRequests(
      principal.actor,
      { decision: "deny", ids: [a, outside, "rr_no-such-request"], reason: "not ours" },
      scope,
    );
    const byId = new Map(denied.results.map((r) => [r.id, r]));
    assert.equal(byId.get(a)!.ok, true);
    assert.equal(byId.get(outside)!.ok, false);
    assert.deepEqual(byId.get(outside)!.error, byId.get("rr_no-such-request")!.error);
    assert.equal(byId.get(outside)!.error!.code, "not_found");
    assert.equal(await stateOf(outside), "pending");

    const approved = await decideRequests(principal.actor, { decision: "approve", ids: [b, outside, "data-bulk"] }, scope);
    assert.deepEqual(
      approved.results.map((r) => [r.id, r.ok, r.error?.code]),
      [
        [b, true, undefined],
        [outside, false, "not_found"],
        ["data-bulk", false, "not_found"],
      ],
    );
    assert.equal(await stateOf(outside), "pending");
    assert.equal(await db().cluster.count({ where: { name: "data-bulk" } }), 0, "no cluster outside the scope");
    const audit = await db().auditLog.findFirstOrThrow({ where: { action: "registrationRequest.approve", targetId: b } });
    assert.deepEqual([audit.allowedRole, audit.allowedTeam], ["operator", "payments"], "audited under the team");
  });

  test("by name, only the requests in scope are weighed: one is a choice, two are listed without the others", async () => {
    // One in scope and two outside under one name: for the team, one choice.
    const mine = await pending("shared-one", IN);
    await pending("shared-one", OUT);
    await pending("shared-one", OUT);
    const { principal, scope } = await allowedAs(registrationRequestRoutes.approve, OPERATOR, "shared-one");
    const [view] = (await listRequests(query({ name: "shared-one", state: "pending" }), scope)).items;
    assert.equal(view!.pendingForName, 1, "only the team's own count");
    assert.equal((await listRequests(query({ name: "shared-one", state: "pending" }), null)).items[0]!.pendingForName, 3);
    const approved = await approveRequest(principal.actor, "shared-one", scope);
    assert.equal(approved.id, mine);
    const cluster = await db().cluster.findUniqueOrThrow({ where: { name: "shared-one" }, include: { labels: true } });
    assert.deepEqual(Object.fromEntries(cluster.labels.map((l) => [l.key, l.value])), IN, "the request's own labels");

    // Two in scope and one outside: ambiguous, listing the team's two only.
    const two = [await pending("shared-two", IN), await pending("shared-two", { ...IN, env: "dev" })];
    const theirs = await pending("shared-two", OUT);
    const ambiguous = await refusal(denyRequest(principal.actor, "shared-two", "which?", scope));
    assert.equal(ambiguous.code, "ambiguous_request");
    assert.match(ambiguous.message, /^2 registration requests for the name shared-two/);
    const listed = (ambiguous.details as { requests: { id: string }[] }).requests.map((r) => r.id);
    assert.deepEqual(listed.sort(), [...two].sort());
    assert.ok(!JSON.stringify(ambiguous.details).includes(theirs));
    // The fleet sees all three.
    const fleet = await refusal(denyRequest(ADMIN, "shared-two", "which?"));
    assert.match(fleet.message, /^3 registration requests/);
  });

  test("an approval carries no labels of its own, and a team's view names no cluster outside its scope", async () => {
    assert.equal(
      registrationRequestRoutes.approve.body.safeParse({ labels: { team: "data" } }).success,
      false,
      "an approval cannot change the labels the request was checked with",
    );
    await db().cluster.create({
      data: {
        id: "cl_data_twin",
        name: "data-twin",
        phase: "Active",
        clusterUid: "uid-twin",
        labels: { create: [{ key: "team", value: "data" }] },
      },
    });
    const id = await pending("pay-twin", IN, { clusterUid: "uid-twin" });
    assert.deepEqual((await getRequest(id, [parseSelector("team=payments")])).sameClusterAs, []);
    assert.deepEqual((await getRequest(id)).sameClusterAs, [{ id: "cl_data_twin", name: "data-twin" }]);
  });

  test("a request made with a team's token is approved only while its labels are still in the team's scope", async () => {
    const team = await db().team.create({ data: { name: "billing", selector: "team=billing" } });
    const teamToken = await mintToken(
      ADMIN,
      { name: "billing", ttlSeconds: 3600, maxClusters: 5, requireApproval: true, fixedLabels: { team: "billing" } },
      { teamId: team.id, team: team.name, role: "admin", selector: parseSelector(team.selector) },
    );
    const ask = async (name: string) => {
      const { body } = registrationBody(name, { csr: csrForKey(makeKey().privateKeyPem), labels: { env: "prod", region: "eu" } });
      const r = await registerCluster(teamToken.token, body, { sourceAddress: "203.0.113.8" });
      assert.equal(r.kind, "pending", JSON.stringify(r));
      return (r as Extract<RegisterResult, { kind: "pending" }>).reply.requestId;
    };
    const first = await ask("billing-1");
    const second = await ask("billing-2");
    assert.equal((await approveRequest(ADMIN, first)).state, "approved");
    // The team's scope moves on: the waiting request's labels no longer land in it.
    await db().team.update({ where: { id: team.id }, data: { selector: "team=billing,tier=gold" } });
    const refused = await refusal(approveRequest(ADMIN, second));
    assert.equal(refused.code, "outside_team_scope");
    assert.match(refused.message, /team billing/);
    assert.equal(await stateOf(second), "pending", "nothing was decided: an operator denies it");
  });
});
