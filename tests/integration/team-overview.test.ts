// A team member's Overview and their access page (lib/server/fleet/overview.ts,
// lib/server/auth/explain-access.ts) on the engine TEST_ENGINE picks: every figure and list of a
// team viewer's Overview counts their teams' clusters only, so a cluster outside the scope changes
// nothing in it (while it does change the fleet's); what exists only fleet-wide is left out; the
// page's first data is the API's answer; and "Your access" says how each role was granted.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { hashKey } from "@tanstack/react-query";
import { fleetRoutes, type Overview } from "@/lib/contracts/fleet";
import { meRoutes, type MyAccess } from "@/lib/contracts/me";
import { reachOf } from "@/lib/contracts/role-reach";
import { ADMIN_ROUTES } from "@/lib/contracts/routes";
import { queryKeys } from "@/lib/client/query-keys";
import { createApiKey } from "@/lib/server/api-keys/api-keys";
import type { Actor } from "@/lib/server/audit/record-audit";
import { authorize } from "@/lib/server/auth/authorize";
import { explainAccess } from "@/lib/server/auth/explain-access";
import { principalFromApiKey, userTeams, type Principal } from "@/lib/server/auth/principal";
import { pageData } from "@/lib/server/console/page-data";
import { PAGE_QUERIES } from "@/lib/server/console/page-queries";
import { db } from "@/lib/server/db/client";
import { overview } from "@/lib/server/fleet/overview";
import { evaluateEnrollment } from "@/lib/server/lifecycle/enrollment";
import { updateSettings } from "@/lib/server/settings/settings";
import { addTeamMember, createTeam } from "@/lib/server/teams/teams";
import { appDatabase } from "../helpers/app-database";
import { callRoute } from "../helpers/route-call";
import { testEngine } from "../helpers/test-database";

appDatabase();

const ADMIN: Actor = { type: "user", id: null, label: "admin@example.com", allowedAs: { role: "admin", team: null } };
const MINUTE = 60_000;

type Facts = { notReady?: boolean; missingRegion?: boolean; certDays?: number; uid?: string; heartbeats?: number };

/** A cluster with the facts each part of the Overview reads: status, labels, a certificate, a UID, heartbeats. */
async function cluster(name: string, team: string, facts: Facts = {}) {
  const now = Date.now();
  const id = `c-${name}`;
  const labels: Record<string, string> = { team, env: "prod", ...(facts.missingRegion ? {} : { region: "eu" }) };
  await db().cluster.create({
    data: {
      id,
      name,
      phase: "Active",
      registeredAt: new Date(now - 86_400_000),
      lastHeartbeatAt: new Date(facts.notReady ? now - 3600_000 : now - 1000),
      statusChangedAt: new Date(now - 3600_000),
      apiServerHealth: "ok",
      clusterUid: facts.uid ?? null,
      labels: { create: Object.entries(labels).map(([key, value]) => ({ key, value })) },
    },
  });
  if (facts.certDays !== undefined)
    await db().certificate.create({
      data: {
        serial: `serial-${name}`,
        clusterId: id,
        fingerprint: `sha256:${name}`,
        pem: "-",
        notBefore: new Date(now - 86_400_000),
        notAfter: new Date(now + facts.certDays * 86_400_000),
      },
    });
  if (facts.heartbeats)
    await db().heartbeatBucket.create({
      data: { clusterId: id, bucketStart: new Date(Math.floor(now / MINUTE) * MINUTE - MINUTE), count: facts.heartbeats },
    });
}

async function userPrincipal(email: string, role: Principal["role"], ssoGroups: string[] = [], oidc = false): Promise<Principal> {
  const user = await db().user.create({
    data: {
      email,
      role: role ?? "none",
      ssoGroups: ssoGroups.length ? JSON.stringify(ssoGroups) : null,
      ...(oidc ? { oidcIssuer: "https://idp.example", oidcSubject: email } : {}),
    },
  });
  return {
    actor: { type: "user", id: user.id, label: email },
    role,
    teams: await userTeams(user),
    via: "session",
    user: { id: user.id, email, name: null },
  };
}

/** The Overview as GET /api/v1/overview answers this caller: authorized, bounded, in its contract's shape. */
async function overviewAs(principal: Principal): Promise<Overview> {
  const { scope } = await authorize(fleetRoutes.overview, principal, {});
  const res = await callRoute(fleetRoutes.overview, {}, () =>
    overview(
      scope,
      principal.teams.map((g) => g.team),
    ),
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Overview;
}

/** What may differ between two reads of the same clusters: the clock (and when the checklists were last evaluated). */
const figures = (o: Overview) => ({
  ...o,
  now: undefined,
  heartbeatsPerMinute: o.heartbeatsPerMinute.map((m) => m.count),
  enrollment: o.enrollment && { ...o.enrollment, at: undefined },
});

describe(`a team member's Overview and access on ${testEngine()}`, () => {
  let viewer: Principal;
  let teamId = "";

  before(async () => {
    await updateSettings(ADMIN, { requiredLabels: ["region"] });
    // The team's clusters: one Ready, one NotReady missing a label, one with a certificate about
    // to expire that shares its UID with a cluster outside the scope.
    await cluster("pay-ready", "payments", { heartbeats: 7 });
    await cluster("pay-down", "payments", { notReady: true, missingRegion: true });
    await cluster("pay-twin", "payments", { certDays: 3, uid: "uid-shared", heartbeats: 5 });
    // Outside it: every kind of thing the Overview counts or lists.
    await cluster("data-down", "data", { notReady: true, missingRegion: true, certDays: 2, uid: "uid-shared", heartbeats: 11 });
    await evaluateEnrollment();
    const team = await createTeam(ADMIN, { name: "payments", selector: "team=payments" });
    teamId = team.id;
    await createTeam(ADMIN, { name: "data", selector: "team=data" });
    const user = await db().user.create({ data: { email: "pay-viewer@example.com", role: "none" } });
    await addTeamMember(ADMIN, teamId, { user: user.email, role: "viewer" });
    viewer = {
      actor: { type: "user", id: user.id, label: user.email },
      role: null,
      teams: await userTeams(user),
      via: "session",
      user: { id: user.id, email: user.email, name: null },
    };
  });

  test("every figure and list counts the team's clusters only; the fleet-wide parts are left out", async () => {
    const o = await overviewAs(viewer);
    assert.deepEqual(o.scope, { teams: ["payments"] });
    assert.equal(o.counts.total, 3);
    assert.equal(o.counts.Ready, 2);
    assert.equal(o.counts.NotReady, 1);
    assert.deepEqual(
      o.attention.notReadyLongest.map((c) => c.name),
      ["pay-down"],
    );
    assert.deepEqual(
      o.attention.missingLabels.map((c) => c.name),
      ["pay-down"],
    );
    assert.deepEqual(
      o.attention.certificatesExpiring.map((c) => c.name),
      ["pay-twin"],
    );
    // Their cluster is registered twice; the other registration is outside the scope and unnamed.
    assert.equal(o.attention.sameCluster.total, 1);
    assert.deepEqual(o.attention.sameCluster.items, [{ id: "c-pay-twin", name: "pay-twin", sameAs: [] }]);
    assert.equal(
      o.heartbeatsPerMinute.reduce((sum, m) => sum + m.count, 0),
      12,
    );
    assert.equal(o.enrollment?.total, 3);
    assert.equal(o.statusHistory, null);
    assert.equal(o.registrations, null);
    assert.equal(o.decisions, null);
    const text = JSON.stringify(o);
    assert.doesNotMatch(text, /data-down|c-data-down/, "nothing names the cluster outside the scope");
  });

  test("a cluster outside the scope changes no number of theirs, and the fleet's", async () => {
    const [teamBefore, fleetBefore] = await Promise.all([overviewAs(viewer), overview()]);
    await cluster("data-more", "data", { notReady: true, missingRegion: true, certDays: 1, uid: "uid-shared", heartbeats: 9 });
    await evaluateEnrollment();
    const [teamAfter, fleetAfter] = await Promise.all([overviewAs(viewer), overview()]);
    assert.deepEqual(figures(teamAfter), figures(teamBefore));
    assert.equal(fleetAfter.counts.total, fleetBefore.counts.total + 1, "the fleet's count moved: the cluster is real");
    assert.equal(fleetAfter.counts.NotReady, fleetBefore.counts.NotReady + 1);
    assert.equal(fleetAfter.attention.sameCluster.total, fleetBefore.attention.sameCluster.total + 1);
    assert.ok(fleetAfter.attention.certificatesExpiring.some((c) => c.name === "data-more"));
    assert.equal(fleetAfter.enrollment?.total, fleetBefore.enrollment!.total + 1);
  });

  test("a fleet role's Overview is the whole fleet's, unbounded and complete", async () => {
    const admin = await userPrincipal("fleet-admin@example.com", "admin");
    const o = await overviewAs(admin);
    assert.equal(o.scope, undefined);
    assert.equal(o.counts.total, await db().cluster.count());
    assert.ok(o.registrations && o.decisions && o.statusHistory, "the fleet-wide parts are there");
    assert.ok(
      o.attention.sameCluster.items.some((c) => c.sameAs.length > 0),
      "peers named for a fleet role",
    );
  });

  test("the Overview page's first data is the team member's bounded answer, under the island's key", async () => {
    const [q] = PAGE_QUERIES["/"]({ params: {}, search: new URLSearchParams() });
    const state = await pageData(viewer, [q!]);
    const cached = state.queries.find((d) => d.queryHash === hashKey(queryKeys.overview))?.state.data as Overview | undefined;
    assert.ok(cached, "loaded for the team member");
    assert.deepEqual(figures(cached), figures(await overviewAs(viewer)));
    // Someone with no role anywhere gets nothing from the server: the client asks and is refused.
    const nobody = await userPrincipal("nobody@example.com", null);
    const empty = await pageData(nobody, [q!]);
    assert.equal(empty.queries.length, 0);
  });

  test("access: a direct member, with their team's scope, its clusters and what a team viewer reaches", async () => {
    const res = await callRoute(meRoutes.access, {}, () => explainAccess(viewer));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const a = res.body as MyAccess;
    assert.equal(a.fleet.role, null);
    assert.match(a.fleet.why, /no fleet role/);
    assert.deepEqual(
      a.teams.map((t) => ({ name: t.name, role: t.role, grants: t.grants, selector: t.selector, clusters: t.clusters })),
      [{ name: "payments", role: "viewer", grants: [{ via: "user", role: "viewer" }], selector: "team=payments", clusters: 3 }],
    );
    assert.doesNotMatch(JSON.stringify(a.teams), /"data"/, "no other team");
    // What a team viewer reaches is read from the declarations: reads, never a fleet-only route.
    const reach = reachOf(a.actions, "viewer", "team");
    const declared = (method: string, path: string) => ADMIN_ROUTES.find((c) => c.method === method && c.path === path)!;
    assert.ok(reach.some((x) => x.path === "/api/v1/overview"));
    assert.ok(reach.every((x) => declared(x.method, x.path).scope !== "fleet" && declared(x.method, x.path).role === "viewer"));
    assert.ok(!reach.some((x) => x.path === "/api/v1/groups"), "groups are the fleet's");
    assert.equal(a.actions.length, ADMIN_ROUTES.length, "every declared route explained");
  });

  test("access: an SSO group member learns which group gave the role; a direct membership beside it is listed too", async () => {
    await updateSettings(ADMIN, {
      ssoRoleMapping: { claim: "groups", rules: [{ value: "platform", role: "viewer" }], defaultRole: "none" },
    });
    await addTeamMember(ADMIN, teamId, { ssoGroup: "grp-payments-ops", role: "operator" });
    const person = await userPrincipal("sso-person@example.com", null, ["grp-payments-ops", "unbound"], true);
    await addTeamMember(ADMIN, teamId, { user: "sso-person@example.com", role: "viewer" });
    const a = await explainAccess({
      ...person,
      teams: await userTeams({ id: person.user!.id, ssoGroups: '["grp-payments-ops","unbound"]' }),
    });
    const team = a.teams.find((t) => t.name === "payments")!;
    assert.equal(team.role, "operator", "the highest of its grants");
    assert.deepEqual(
      [...team.grants].sort((x, y) => x.via.localeCompare(y.via)),
      [
        { via: "ssoGroup", group: "grp-payments-ops", role: "operator" },
        { via: "user", role: "viewer" },
      ],
    );
    assert.deepEqual(a.ssoGroups, ["grp-payments-ops", "unbound"]);
    assert.match(a.fleet.why, /SSO role mapping.*"groups" claim/);
  });

  test("access: a fleet admin reaches every route, in no team; an API key is capped by its creator", async () => {
    const admin = await userPrincipal("access-admin@example.com", "admin");
    const a = await explainAccess(admin);
    assert.deepEqual({ role: a.fleet.role, teams: a.teams }, { role: "admin", teams: [] });
    assert.match(a.fleet.why, /fleet admin/);
    assert.equal(reachOf(a.actions, "admin", "fleet").length, ADMIN_ROUTES.length);
    assert.ok(
      a.actions.some(
        (x) => x.path === "/api/v1/teams" && x.method === "POST" && !x.teams && x.does === "Create a team with its scope",
      ),
    );

    // A key made a team operator by a creator who is only a team viewer acts as a viewer there.
    const creator = await userPrincipal("key-creator@example.com", null);
    await addTeamMember(ADMIN, teamId, { user: "key-creator@example.com", role: "viewer" });
    const minted = await createApiKey(
      { type: "user", id: creator.user!.id, label: "key-creator@example.com" },
      {
        name: "pay-key",
        role: "none",
      },
    );
    await addTeamMember(ADMIN, teamId, { apiKey: minted.id, role: "operator" });
    const keyPrincipal = (await principalFromApiKey(minted.key))!;
    const k = await explainAccess(keyPrincipal);
    assert.equal(k.who.kind, "apiKey");
    assert.equal(k.fleet.role, null);
    assert.deepEqual(
      k.teams.map((t) => ({ name: t.name, role: t.role, grants: t.grants })),
      [{ name: "payments", role: "viewer", grants: [{ via: "apiKey", role: "operator", cappedTo: "viewer" }] }],
    );
  });
});
