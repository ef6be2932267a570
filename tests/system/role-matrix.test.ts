// Every guarded admin handler, generated from the route declarations (lib/contracts/routes.ts):
// called as anonymous, viewer, operator and admin. Below the declared role it answers 403
// (anonymous 401); at or above it, neither 401 nor 403, and never a 500 (the server checks every
// answer against its declared schema here, so a 500 can also mean an answer outside its contract).
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, test } from "node:test";
import type { RouteContract } from "@/lib/contracts/route";
import { ADMIN_ROUTES } from "@/lib/contracts/routes";
import { hasRole, ROLES, type Role } from "@/lib/domain/roles";
import { sessionCookie } from "../helpers/console-session";
import { startFleetServer, type FleetServer } from "../helpers/fleet-server";

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
function streamStatus(url: string, cookie: string | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${server.consoleUrl}${url}`, { headers: cookie ? { cookie } : {} }, (res) => {
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
