// Every guarded admin handler, generated from the route declarations (lib/contracts/routes.ts):
// called as anonymous, viewer, operator and admin. Below the declared role it answers 403
// (anonymous 401); at or above it, neither 401 nor 403, and never a 500 (the server checks every
// answer against its declared schema here, so a 500 can also mean an answer outside its contract).
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { ROUTE_SCOPES, type RouteContract } from "@/lib/contracts/route";
import { ADMIN_ROUTES } from "@/lib/contracts/routes";
import { hasRole, ROLES, type Role } from "@/lib/domain/roles";
import { sessionCookie } from "../helpers/console-session";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { until } from "../helpers/until";
import { call as callAgentPort, mintToken, registrationBody, rideOut } from "../helpers/agent-client";

let server: FleetServer;
const cookies = new Map<Role, string>();
let clusterId = "";

before(async () => {
  server = await startFleetServer();
  cookies.set("admin", await server.adminCookie());
  for (const role of ["viewer", "operator"] as const) {
    const account = { email: `${role}@role-matrix.example`, password: "a-long-password-1" };
    const res = await server.api("POST", "/api/v1/users", { ...account, role });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    cookies.set(role, await sessionCookie(server.consoleUrl, account));
  }
  // A real cluster, so the reads under /clusters/{id} answer 200 and their bodies are checked.
  const cluster = await server.api("POST", "/api/v1/clusters", { name: "role-matrix", labels: { env: "dev", region: "eu" } });
  assert.equal(cluster.status, 201, JSON.stringify(cluster.body));
  clusterId = cluster.body.id;
});
after(async () => {
  await server?.stop();
});

/** The URL a declaration is called at: the real cluster under /clusters, an unknown id elsewhere. */
function urlOf(c: RouteContract): string {
  return c.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === "id" && c.path.startsWith("/api/v1/clusters/") ? clusterId : "role-matrix-missing",
  );
}

/** The live stream never ends: its status is all this needs. */
function streamStatus(url: string, cookie: string | null, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${server.consoleUrl}${url}`, { headers: { ...headers, ...(cookie ? { cookie } : {}) } }, (res) => {
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on("error", reject);
  });
}

async function call(c: RouteContract, who: Role | "anonymous"): Promise<{ status: number; body: unknown }> {
  const cookie = who === "anonymous" ? null : cookies.get(who)!;
  if (c.path === "/api/v1/events") return { status: await streamStatus(urlOf(c), cookie), body: null };
  // An empty object: enough to pass authorisation and fail validation, so nothing is changed.
  const body = c.method === "GET" || c.method === "DELETE" || !c.body ? undefined : {};
  return server.api(c.method, urlOf(c), body, { cookie });
}

test("what creates or changes who can sign in, or mints keys, refuses even an admin's API key: 403 session_required", async () => {
  const minted = await server.api("POST", "/api/v1/api-keys", { name: "role-matrix-admin-key", role: "admin" });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  const asKey = { cookie: null, headers: { authorization: `Bearer ${minted.body.key as string}` } };
  const sessionOnly = ADMIN_ROUTES.filter((c) => c.session);
  assert.deepEqual(sessionOnly.map((c) => `${c.method} ${c.path}`).sort(), [
    "DELETE /api/v1/users/{id}/sign-in-locks",
    "PATCH /api/v1/users/{id}",
    "POST /api/v1/api-keys",
    "POST /api/v1/users",
    "POST /api/v1/users/{id}/password-link",
  ]);
  for (const c of sessionOnly) {
    const body = c.method === "DELETE" ? undefined : {};
    const res = await server.api(c.method, urlOf(c), body, asKey);
    assert.equal(res.status, 403, `${c.method} ${c.path}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error, "session_required", `${c.method} ${c.path}`);
  }
  // A whole request, not only the empty body above: the key makes no user.
  const made = await server.api(
    "POST",
    "/api/v1/users",
    { email: "made-by-key@role-matrix.example", password: "a-long-password-1", role: "admin" },
    asKey,
  );
  assert.equal(made.status, 403);
  assert.equal(made.body.error, "session_required");
  const users = (await server.api("GET", "/api/v1/users", undefined, asKey)).body.items as { email: string }[];
  assert.ok(!users.some((u) => u.email === "made-by-key@role-matrix.example"), "an admin key still reads users, and made none");
  const revoked = await server.api("DELETE", `/api/v1/api-keys/${minted.body.id as string}`);
  assert.equal(revoked.status, 200);
});

test("the declarations cover every guarded admin handler", () => {
  assert.ok(ADMIN_ROUTES.length >= 45, `${ADMIN_ROUTES.length} declared`);
});

test("each handler answers 401 anonymous, 403 below its role, and neither at or above it", async () => {
  // Reads first: a mutation allowed to an admin (a CA rollover, say) changes what later reads see.
  const ordered = [...ADMIN_ROUTES].sort((a, b) => Number(a.method !== "GET") - Number(b.method !== "GET"));
  const failures: string[] = [];
  for (const c of ordered) {
    const key = `${c.method} ${c.path} (${c.role})`;
    const anonymous = await call(c, "anonymous");
    if (anonymous.status !== 401) failures.push(`${key} anonymous: ${anonymous.status}`);
    for (const role of ROLES) {
      const res = await call(c, role);
      const allowed = hasRole(role, c.role);
      if (!allowed && res.status !== 403) failures.push(`${key} as ${role}: ${res.status}, expected 403`);
      if (allowed && [401, 403].includes(res.status))
        failures.push(`${key} as ${role}: ${res.status} ${JSON.stringify(res.body)}`);
      if (allowed && res.status >= 500) failures.push(`${key} as ${role}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  assert.deepEqual(
    failures,
    [],
    `\n${failures.join("\n")}\n${server
      .logs()
      .split("\n")
      .filter((l) => /contract|ERROR/.test(l))
      .slice(0, 10)
      .join("\n")}`,
  );
});

// The scope dimension (lib/contracts/route.ts, `scope`): callers whose only roles come from a
// team, against a cluster inside its scope and one outside it. A route bounded to fleet roles
// refuses them (403); one about a cluster answers for the cluster in scope by their team role and
// 404 for the other, as for an id that does not exist; lists never show the other.
describe("team roles, inside and outside the team's scope", () => {
  type TeamCaller = { name: string; role: Role; headers: Record<string, string>; cookie: string | null };
  const callers: TeamCaller[] = [];
  let teamId = "";
  let otherTeamId = "";
  const inScope = { id: "", name: "rm-team-in" };
  // Things a team may own (lib/contracts/route.ts): one of each that the fleet owns, which a team
  // member must not tell apart from an id that does not exist, and one the team itself made.
  const OWNED_SCOPES = ["token", "rollout", "webhook", "view", "request"] as const;
  type OwnedScope = (typeof OWNED_SCOPES)[number];
  const fleetOwned: Partial<Record<OwnedScope, string>> = {};
  const teamOwned: Partial<Record<OwnedScope, string>> = {};
  const isOwned = (scope: string): scope is OwnedScope => (OWNED_SCOPES as readonly string[]).includes(scope);
  /** How to make the team's own object again once a caller has deleted it (the next caller needs one). */
  const remakeOwned: Partial<Record<OwnedScope, () => Promise<string>>> = {};
  const outOfScope = { id: "", name: "rm-team-out" };

  before(async () => {
    for (const c of [inScope, outOfScope]) {
      const team = c === inScope ? "rm" : "elsewhere";
      const made = await server.api("POST", "/api/v1/clusters", { name: c.name, labels: { env: "dev", region: "eu", team } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      c.id = made.body.id;
    }
    const team = await server.api("POST", "/api/v1/teams", { name: "rm", selector: "team=rm" });
    assert.equal(team.status, 201, JSON.stringify(team.body));
    teamId = team.body.id;
    otherTeamId = (await server.api("POST", "/api/v1/teams", { name: "elsewhere", selector: "team=elsewhere" })).body.id;
    for (const role of ["viewer", "operator"] as const) {
      const account = { email: `team-${role}@role-matrix.example`, password: "a-long-password-1" };
      assert.equal((await server.api("POST", "/api/v1/users", { ...account, role: "none" })).status, 201);
      const added = await server.api("POST", `/api/v1/teams/${teamId}/members`, { user: account.email, role });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      callers.push({ name: `team ${role}`, role, headers: {}, cookie: await sessionCookie(server.consoleUrl, account) });
    }
    const key = await server.api("POST", "/api/v1/api-keys", { name: "rm-team-key", role: "none" });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const added = await server.api("POST", `/api/v1/teams/${teamId}/members`, { apiKey: key.body.id, role: "operator" });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const fleet: Record<Exclude<OwnedScope, "request">, [string, unknown]> = {
      token: ["/api/v1/registration-tokens", { name: "rm-fleet-token", maxClusters: 1 }],
      rollout: [
        "/api/v1/rollouts",
        { name: "rm-fleet-rollout", targetVersion: "1.5.0", selector: "team=elsewhere", stages: [{ name: "all", percent: 100 }] },
      ],
      // A loopback receiver that is never called (nothing is removed): private targets are allowed first.
      webhook: ["/api/v1/webhooks", { url: "http://127.0.0.1:9/rm", events: ["cluster.removed"] }],
      view: ["/api/v1/clusters/views", { name: "rm-fleet-view", query: "status=Ready" }],
    };
    assert.equal((await server.api("PATCH", "/api/v1/settings", { webhookAllowPrivateTargets: true })).status, 200);
    for (const [kind, [path, body]] of Object.entries(fleet)) {
      const made = await server.api("POST", path, body);
      assert.equal(made.status, 201, `${kind}: ${JSON.stringify(made.body)}`);
      fleetOwned[kind as OwnedScope] = made.body.id;
    }
    // A view the team's operator saved: theirs to delete, made again after each deletion.
    const teamOperator = callers.find((c) => c.role === "operator")!;
    let views = 0;
    remakeOwned.view = async () => {
      const body = { name: `rm-team-view-${++views}`, query: "status=Ready" };
      const made = await server.api("POST", "/api/v1/clusters/views", body, { cookie: teamOperator.cookie });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.team, "rm");
      return made.body.id as string;
    };
    teamOwned.view = await remakeOwned.view();
    // The team's own rollout, started by its operator: env=dev also matches clusters outside its scope.
    const teamRollout = await server.api(
      "POST",
      "/api/v1/rollouts",
      { name: "rm-team-rollout", targetVersion: "1.5.0", selector: "env=dev", stages: [{ name: "all", percent: 100 }] },
      { cookie: callers[1]!.cookie },
    );
    assert.equal(teamRollout.status, 201, JSON.stringify(teamRollout.body));
    assert.deepEqual(
      (teamRollout.body.clusters as { name: string }[]).map((c) => c.name),
      [inScope.name],
    );
    teamOwned.rollout = teamRollout.body.id;
    callers.push({
      name: "team operator API key",
      role: "operator",
      headers: { authorization: `Bearer ${key.body.key}` },
      cookie: null,
    });
  });

  // The team's own registration token, minted by its admin (the callers above are not admins:
  // revoking it must be refused to them).
  const asTeamAdmin = { cookie: "" };
  let teamToken = "";
  before(async () => {
    const account = { email: "team-admin@role-matrix.example", password: "a-long-password-1" };
    assert.equal((await server.api("POST", "/api/v1/users", { ...account, role: "none" })).status, 201);
    assert.equal(
      (await server.api("POST", `/api/v1/teams/${teamId}/members`, { user: account.email, role: "admin" })).status,
      201,
    );
    asTeamAdmin.cookie = await sessionCookie(server.consoleUrl, account);
    const token = await server.api(
      "POST",
      "/api/v1/registration-tokens",
      { name: "rm-team-token", fixedLabels: { team: "rm" } },
      asTeamAdmin,
    );
    assert.equal(token.status, 201, JSON.stringify(token.body));
    teamOwned.token = token.body.id;
    teamToken = token.body.token;
  });

  // The team's own webhook subscription, made by its admin. Registration requests through the
  // agent port: one the team's scope takes in (denied at once, so a team operator's approve with
  // an empty body creates no cluster in the scope), and one outside it, left pending: its name
  // contains the other cluster's, so a list leaking it fails.
  before(async () => {
    const hook = await server.api(
      "POST",
      "/api/v1/webhooks",
      { url: "http://127.0.0.1:9/rm-team", events: ["cluster.removed"], team: "rm" },
      asTeamAdmin,
    );
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    teamOwned.webhook = hook.body.id;
    const approval = await mintToken(server, { name: "rm-approval", maxClusters: 5, requireApproval: true });
    // The matrix's admin calls may have rolled the fleet CA over: trust what the agent port serves now.
    const trust = String((await callAgentPort(`${server.agentUrl}/api/agent/v1/ca`, "GET", { rejectUnauthorized: false })).body);
    for (const [name, team] of [
      ["rm-team-in-req", "rm"],
      ["rm-team-out-req", "elsewhere"],
    ] as const) {
      const { body } = registrationBody(name, { labels: { env: "dev", region: "eu", team } });
      const asked = await rideOut(
        () =>
          callAgentPort(`${server.agentUrl}/api/agent/v1/register`, "POST", {
            body,
            headers: { authorization: `Bearer ${approval.token}` },
            ca: trust,
          }),
        Date.now() + 30_000,
      );
      assert.equal(asked.status, 202, JSON.stringify(asked.body));
      (team === "rm" ? teamOwned : fleetOwned).request = asked.body.requestId;
    }
    const denied = await server.api("POST", `/api/v1/registration-requests/${teamOwned.request}/deny`, { reason: "role matrix" });
    assert.equal(denied.status, 200, JSON.stringify(denied.body));
  });

  function scopedUrl(
    c: RouteContract,
    clusterId: string,
    team: string,
    owned = "role-matrix-missing",
    batch = "role-matrix-missing",
  ): string {
    return c.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (name === "batchId") return batch;
      if (name === "id" && isOwned(c.scope)) return owned;
      if (name === "id" && c.path.startsWith("/api/v1/clusters/")) return clusterId;
      if (name === "id" && c.path.startsWith("/api/v1/teams/")) return team;
      return "role-matrix-missing";
    });
  }
  // A drain of one cluster waiting in the queue, as a batch of its own whose turn never comes
  // during the test: what DELETE /drain-queue/{batchId} cancels (SQLite keeps DateTime as milliseconds).
  let batches = 0;
  async function waitingBatch(clusterId: string): Promise<string> {
    const batchId = `rm-batch-${++batches}`;
    const at = (d: Date) => (server.db.engine === "sqlite" ? d.getTime() : d);
    const p = (i: number) => (server.db.engine === "sqlite" ? "?" : `$${i}`);
    await server.db.query(`DELETE FROM "QueuedDrain" WHERE "clusterId" = ${p(1)}`, [clusterId]);
    await server.db.query(
      `INSERT INTO "QueuedDrain" ("clusterId", "batchId", "reason", "actorType", "actorLabel", "queuedAt", "notBefore")
       VALUES (${p(1)}, ${p(2)}, 'role matrix', 'user', 'admin@role-matrix.example', ${p(3)}, ${p(4)})`,
      [clusterId, batchId, at(new Date()), at(new Date(Date.now() + 365 * 86_400_000))],
    );
    return batchId;
  }
  /** An id of the kind's own shape that names nothing. */
  const missingId = (scope: OwnedScope) => (scope === "request" ? "rr_role-matrix-missing" : "role-matrix-missing");

  async function callAs(c: RouteContract, who: TeamCaller, url: string) {
    if (c.path === "/api/v1/events") return { status: await streamStatus(url, who.cookie, who.headers), body: null, text: "" };
    const body = c.method === "GET" || c.method === "DELETE" || !c.body ? undefined : {};
    const res = await server.api(c.method, url, body, { cookie: who.cookie, headers: who.headers });
    return { ...res, text: JSON.stringify(res.body) };
  }

  test("every declaration says how it is scoped", () => {
    const undeclared = ADMIN_ROUTES.filter((c) => !ROUTE_SCOPES.includes(c.scope)).map((c) => `${c.method} ${c.path}`);
    assert.deepEqual(undeclared, []);
  });

  test("each handler answers a team member by their team role in scope, 404 outside it, and 403 where only fleet roles reach", async () => {
    const ordered = [...ADMIN_ROUTES].sort((a, b) => Number(a.method !== "GET") - Number(b.method !== "GET"));
    const failures: string[] = [];
    for (const c of ordered) {
      for (const who of callers) {
        const key = `${c.method} ${c.path} (${c.scope}, ${c.role}) as ${who.name}`;
        const allowed = hasRole(who.role, c.teamRole ?? c.role);
        if (c.scope === "fleet") {
          const res = await callAs(c, who, scopedUrl(c, inScope.id, teamId));
          if (res.status !== 403) failures.push(`${key}: ${res.status}, expected 403`);
          continue;
        }
        if (isOwned(c.scope)) {
          const missing = await callAs(c, who, scopedUrl(c, "", "", missingId(c.scope)));
          if (missing.status !== 404) failures.push(`${key} for an unknown id: ${missing.status}, expected 404`);
          const fleetId = fleetOwned[c.scope];
          if (fleetId) {
            const outside = await callAs(c, who, scopedUrl(c, "", "", fleetId));
            if (outside.status !== 404 || outside.text !== missing.text)
              failures.push(`${key} for the fleet's own: ${outside.status} ${outside.text}, expected what an unknown id answers`);
          }
          const ownId = teamOwned[c.scope];
          if (ownId) {
            const own = await callAs(c, who, scopedUrl(c, "", "", ownId));
            if (!allowed && own.status !== 403) failures.push(`${key} for the team's own: ${own.status}, expected 403`);
            if (allowed && ([401, 403, 404].includes(own.status) || own.status >= 500))
              failures.push(`${key} for the team's own: ${own.status} ${own.text.slice(0, 200)}`);
            const remake = remakeOwned[c.scope];
            if (c.method === "DELETE" && own.status < 300 && remake) teamOwned[c.scope] = await remake();
          }
          continue;
        }
        // A batch route: a batch waiting on the team's cluster, and one waiting only on the other.
        const batch = c.path.includes("{batchId}") ? await waitingBatch(inScope.id) : undefined;
        const inside = await callAs(c, who, scopedUrl(c, inScope.id, teamId, undefined, batch));
        if (!allowed && inside.status !== 403) failures.push(`${key} in scope: ${inside.status}, expected 403`);
        if (allowed && ([401, 403, 404].includes(inside.status) || inside.status >= 500))
          failures.push(`${key} in scope: ${inside.status} ${inside.text.slice(0, 200)}`);
        if (inside.text.includes(outOfScope.id) || inside.text.includes(outOfScope.name))
          failures.push(`${key}: the answer names the cluster outside the scope`);
        if (inside.text.includes(otherTeamId)) failures.push(`${key}: the answer names another team`);
        if (batch && allowed) {
          const outside = await callAs(c, who, scopedUrl(c, "", "", undefined, await waitingBatch(outOfScope.id)));
          const missing = await callAs(c, who, scopedUrl(c, "", ""));
          if (outside.status !== 404 || outside.text !== missing.text)
            failures.push(
              `${key} for a batch outside the scope: ${outside.status} ${outside.text}, expected what an unknown batch answers`,
            );
        }
        if (c.scope === "cluster" || c.scope === "team") {
          const outside = await callAs(c, who, scopedUrl(c, outOfScope.id, otherTeamId));
          if (outside.status !== 404) failures.push(`${key} outside the scope: ${outside.status}, expected 404`);
          const missing = await callAs(c, who, scopedUrl(c, "no-such-cluster", "no-such-team"));
          if (outside.status === 404 && outside.text !== missing.text)
            failures.push(`${key}: outside the scope reads differently from a missing id (${outside.text} vs ${missing.text})`);
        }
      }
    }
    assert.deepEqual(failures, [], `\n${failures.join("\n")}`);
  });

  test("the list, its total and the export hold only the team's clusters", async () => {
    const viewer = callers[0]!;
    const list = await server.api("GET", "/api/v1/clusters", undefined, { cookie: viewer.cookie });
    assert.equal(list.status, 200);
    assert.deepEqual(
      (list.body.items as { name: string }[]).map((i) => i.name),
      [inScope.name],
    );
    assert.equal(list.body.total, 1);
    const csv = await server.api("GET", "/api/v1/clusters/export?format=csv", undefined, { cookie: viewer.cookie });
    assert.equal(csv.status, 200);
    assert.match(String(csv.body), new RegExp(inScope.name));
    assert.doesNotMatch(String(csv.body), new RegExp(outOfScope.name));
  });

  test("a team operator's approval queue and a team admin's webhooks hold only the team's own", async () => {
    const operator = { cookie: callers[1]!.cookie };
    const queue = await server.api("GET", "/api/v1/registration-requests", undefined, operator);
    assert.equal(queue.status, 200, JSON.stringify(queue.body));
    assert.deepEqual(
      (queue.body.items as { id: string }[]).map((r) => r.id),
      [teamOwned.request],
    );
    assert.equal(queue.body.pending, 0, "the pending one is the other team's");
    assert.equal((await server.api("GET", "/api/v1/registration-requests")).body.pending, 1, "the fleet's count");
    const decided = await server.api(
      "POST",
      "/api/v1/registration-requests/decisions",
      { decision: "deny", ids: [fleetOwned.request, "rr_role-matrix-missing"], reason: "not ours" },
      operator,
    );
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const [outside, unknown] = decided.body.results as { ok: boolean; error: unknown }[];
    assert.equal(outside!.ok, false);
    assert.deepEqual(outside!.error, unknown!.error, "outside the scope reads as unknown");
    const hooks = await server.api("GET", "/api/v1/webhooks", undefined, asTeamAdmin);
    assert.equal(hooks.status, 200, JSON.stringify(hooks.body));
    assert.deepEqual(
      (hooks.body.items as { id: string }[]).map((w) => w.id),
      [teamOwned.webhook],
    );
    assert.equal((await server.api("GET", `/api/v1/webhooks/${teamOwned.webhook}`, undefined, asTeamAdmin)).status, 200);
    assert.equal((await server.api("GET", `/api/v1/webhooks/${fleetOwned.webhook}`, undefined, asTeamAdmin)).status, 404);
  });

  test("a team key's gate judges the selection within the scope and counts what it left out", async () => {
    const key = callers[2]!;
    const gate = await server.api("GET", "/api/v1/gate?selector=env%3Ddev", undefined, { cookie: null, headers: key.headers });
    assert.equal(gate.status, 200, JSON.stringify(gate.body));
    assert.deepEqual(
      (gate.body.clusters as { name: string }[]).map((c) => c.name),
      [inScope.name],
    );
    assert.equal(gate.body.scope.leftOut, 2, "the matrix's own cluster and the other team's match env=dev too");
    assert.match(gate.body.scope.text, /2 more clusters match outside them/);
    const fleet = await server.api("GET", "/api/v1/gate?selector=env%3Ddev");
    assert.equal(fleet.body.scope, undefined, "a fleet role's gate is not bounded");
    assert.equal(fleet.body.clusters.length, 3);
  });

  test("a team operator's bulk label change reaches only the team's clusters, and never a label a scope reads", async () => {
    const operator = { cookie: callers[1]!.cookie };
    const filter = { selector: "env=dev" };
    const tiered = await server.api(
      "POST",
      "/api/v1/clusters/bulk/labels",
      { filter, set: { tier: "silver" }, remove: [] },
      operator,
    );
    assert.equal(tiered.status, 200, JSON.stringify(tiered.body));
    assert.deepEqual(
      (tiered.body.rows as { name: string }[]).map((r) => r.name),
      [inScope.name],
    );
    assert.equal(tiered.body.leftOut, 2);
    const out = await server.api("GET", `/api/v1/clusters/${outOfScope.id}`);
    assert.equal(out.body.labels.tier, undefined, "the other team's cluster is untouched");
    const moving = await server.api(
      "POST",
      "/api/v1/clusters/bulk/labels",
      { filter, set: { team: "elsewhere" }, remove: [] },
      operator,
    );
    assert.equal(moving.status, 403, JSON.stringify(moving.body));
    assert.equal(moving.body.error, "scope_label_locked");
    assert.deepEqual(moving.body.details.clusters, [{ cluster: inScope.name, keys: ["team"] }]);
  });

  test("the live stream sends a team member their clusters' events only, and no fleet-wide counts", async () => {
    const viewer = callers[0]!;
    let text = "";
    const req = http.get(`${server.consoleUrl}/api/v1/events`, { headers: { cookie: viewer.cookie! } }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
    });
    req.on("error", () => {});
    try {
      await until("the stream to open", async () => text.includes("retry:"), 10_000);
      for (const c of [outOfScope, inScope])
        assert.equal((await server.api("PATCH", `/api/v1/clusters/${c.id}`, { description: "touched" })).status, 200);
      await until("the in-scope cluster's event", async () => text.includes(inScope.id), 10_000);
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(!text.includes(outOfScope.id), "nothing about the cluster outside the scope");
      assert.ok(!text.includes("fleet.summary"), "no fleet-wide counts");
    } finally {
      req.destroy();
    }
  });

  test("label values count the team's clusters only", async () => {
    const viewer = { cookie: callers[0]!.cookie };
    const labels = await server.api("GET", "/api/v1/labels", undefined, viewer);
    assert.equal(labels.status, 200, JSON.stringify(labels.body));
    assert.equal(labels.body.clusters, 1);
    assert.doesNotMatch(JSON.stringify(labels.body), /elsewhere/, "no label value of the other team's cluster");
    const fleetLabels = await server.api("GET", "/api/v1/labels");
    assert.match(JSON.stringify(fleetLabels.body), /elsewhere/, "a fleet role sees every value");
  });

  test("a team operator cannot move a cluster between scopes: labels a scope reads are locked, others are theirs", async () => {
    const operator = callers[1]!;
    const asOperator = { cookie: operator.cookie };
    const moved = await server.api(
      "PATCH",
      `/api/v1/clusters/${inScope.id}`,
      { labels: { env: "dev", region: "eu", team: "elsewhere" } },
      asOperator,
    );
    assert.equal(moved.status, 403, JSON.stringify(moved.body));
    assert.equal(moved.body.error, "scope_label_locked");
    const relabelled = await server.api(
      "PATCH",
      `/api/v1/clusters/${inScope.id}`,
      { labels: { env: "dev", region: "eu", team: "rm", tier: "gold" } },
      asOperator,
    );
    assert.equal(relabelled.status, 200, JSON.stringify(relabelled.body));
    const audit = await server.db.query<{ allowedRole: string; allowedTeam: string }>(
      `SELECT "allowedRole", "allowedTeam" FROM "AuditLog" WHERE action = 'cluster.update' ORDER BY id DESC LIMIT 1`,
    );
    assert.deepEqual({ ...audit[0] }, { allowedRole: "operator", allowedTeam: "rm" }, "the audit says under which team");
    const log = await server.api("GET", "/api/v1/audit?limit=200", undefined, asOperator);
    assert.equal(log.status, 200, JSON.stringify(log.body));
    const entries = log.body.items as { action: string; targetId: string | null }[];
    assert.ok(
      entries.some((e) => e.action === "cluster.update" && e.targetId === inScope.id),
      "their cluster's change",
    );
    assert.ok(
      entries.some((e) => e.action === "team.member_add" && e.targetId === teamId),
      "their team's members",
    );
    const owned = new Set(Object.values(teamOwned));
    assert.ok(
      entries.some((e) => e.action === "token.mint" && e.targetId === teamOwned.token),
      "their team's token",
    );
    assert.deepEqual(
      entries.filter((e) => e.targetId !== inScope.id && e.targetId !== teamId && !owned.has(e.targetId!)),
      [],
      "nothing about the fleet's other clusters, teams, tokens or users",
    );
  });

  test("a team's token is its admin's to mint, lands every cluster in the team's scope, and only its attempts are theirs to read", async () => {
    const operator = { cookie: callers[1]!.cookie };
    const byOperator = await server.api(
      "POST",
      "/api/v1/registration-tokens",
      { name: "op", fixedLabels: { team: "rm" } },
      operator,
    );
    assert.equal(byOperator.status, 403, "a team operator does not mint the team's tokens");
    for (const fixedLabels of [{}, { team: "elsewhere" }]) {
      const outside = await server.api("POST", "/api/v1/registration-tokens", { name: "outside", fixedLabels }, asTeamAdmin);
      assert.equal(outside.status, 422, JSON.stringify(outside.body));
      assert.equal(outside.body.error, "outside_team_scope");
      assert.match(outside.body.message, /team=rm/);
    }
    const unknown = await server.api(
      "POST",
      "/api/v1/registration-tokens",
      { name: "b", clusterId: "cl_none", fixedLabels: { team: "rm" } },
      asTeamAdmin,
    );
    const otherTeams = await server.api(
      "POST",
      "/api/v1/registration-tokens",
      { name: "b", clusterId: outOfScope.id, fixedLabels: { team: "rm" } },
      asTeamAdmin,
    );
    assert.equal(otherTeams.status, 404);
    assert.equal(
      otherTeams.body.message,
      unknown.body.message.replace("cl_none", outOfScope.id),
      "binding outside the scope reads as an unknown cluster",
    );

    // The matrix above may have started a CA rollover: trust what the agent port serves now, as an agent fetching the CA would.
    const ca = await callAgentPort(`${server.agentUrl}/api/agent/v1/ca`, "GET", { rejectUnauthorized: false });
    const registerWith = (token: string, body: unknown) =>
      callAgentPort(`${server.agentUrl}/api/agent/v1/register`, "POST", {
        body,
        ca: String(ca.body),
        headers: { authorization: `Bearer ${token}` },
      });
    // The agent asks for another team's label: the token's fixed one stands, and the request is refused.
    const asked = registrationBody("rm-team-agent", { labels: { env: "dev", region: "eu", team: "elsewhere" } });
    const refused = await registerWith(teamToken, asked.body);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error, "label_not_allowed");
    const { body } = registrationBody("rm-team-agent", { labels: { env: "dev", region: "eu" } });
    const registered = await rideOut(() => registerWith(teamToken, body), Date.now() + 30_000);
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const viewer = { cookie: callers[0]!.cookie };
    const mine = await server.api("GET", `/api/v1/clusters/${registered.body.clusterId}`, undefined, viewer);
    assert.equal(mine.status, 200, "the new cluster is in the team's scope");
    assert.equal(mine.body.labels.team, "rm");

    // A fleet token's attempt, which the team must not see.
    const fleetToken = await server.api("POST", "/api/v1/registration-tokens", { name: "rm-fleet-only", maxClusters: 1 });
    await registerWith(fleetToken.body.token, registrationBody("rm-fleet-agent", { labels: { team: "x" } }).body);
    const attempts = await server.api("GET", "/api/v1/registration-attempts?limit=500", undefined, viewer);
    assert.equal(attempts.status, 200, JSON.stringify(attempts.body));
    const tokenIds = new Set((attempts.body.items as { tokenId: string }[]).map((a) => a.tokenId));
    assert.deepEqual([...tokenIds], [teamOwned.token], "only the team's token's attempts");
    assert.equal((attempts.body.items as unknown[]).length, 2, "the refusal and the registration");
    const summary = await server.api("GET", "/api/v1/registration-attempts/summary", undefined, viewer);
    assert.equal(summary.body.refused, 1, "the team's refusal only");
    const tokens = await server.api("GET", "/api/v1/registration-tokens", undefined, viewer);
    assert.deepEqual(
      (tokens.body.items as { name: string; team: string }[]).map((t) => [t.name, t.team]),
      [["rm-team-token", "rm"]],
    );
  });
});
