// Revocable console sessions and API keys bound to their creator, against the real server: a
// cookie made from a copy of the data works nowhere, sign-out ends the session everywhere, a
// password change ends every session of that user, role changes apply at once, a key acts with at
// most its creator's current role, and open live-event streams of whoever lost access close within 5 s.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { after, before, test } from "node:test";
import { decode, encode } from "next-auth/jwt";
import { sessionCookie, signIn, signOut } from "../helpers/console-session";
import { ADMIN, startFleetServer, type FleetServer } from "../helpers/fleet-server";

let server: FleetServer;

before(async () => {
  server = await startFleetServer();
});
after(async () => {
  await server?.stop();
});

const asSession = (cookie: string) => ({ cookie });
const asKey = (key: string) => ({ cookie: null, headers: { authorization: `Bearer ${key}` } });

async function addUser(email: string, role: string, password = "a-long-password-1") {
  const res = await server.api("POST", "/api/v1/users", { email, password, role });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.id as string, email, password };
}

const mint = (opts: { cookie?: string | null; headers?: Record<string, string> }, name = "t") =>
  server.api("POST", "/api/v1/registration-tokens", { name }, opts);

/** Opens GET /api/v1/events; `closed` resolves with the time the server ended the stream. */
function openStream(headers: Record<string, string>): Promise<{ status: number; closed: Promise<number> }> {
  const u = new URL(`${server.consoleUrl}/api/v1/events`);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: u.hostname, port: u.port, path: u.pathname, headers, agent: false }, (res) => {
      const closed = new Promise<number>((done) => {
        res.on("data", () => {});
        res.on("end", () => done(Date.now()));
        res.on("close", () => done(Date.now()));
      });
      resolve({ status: res.statusCode ?? 0, closed });
    });
    req.on("error", reject);
    req.end();
  });
}

async function closesWithin(stream: { closed: Promise<number> }, since: number, ms: number, what: string) {
  const timeout = new Promise<number>((r) => setTimeout(() => r(-1), ms + 2000).unref());
  const at = await Promise.race([stream.closed, timeout]);
  assert.ok(at !== -1, `${what}: the stream was still open ${ms + 2000} ms later`);
  assert.ok(at - since <= ms, `${what}: closed after ${at - since} ms`);
  return at - since;
}

test("after sign-out the old session cookie is refused for mutations and reads", async () => {
  const user = await addUser("signout@example.com", "operator");
  const cookie = await sessionCookie(server.consoleUrl, user);
  assert.equal((await mint(asSession(cookie))).status, 201);
  assert.equal(await signOut(server.consoleUrl, cookie), 200);
  const replayed = await mint(asSession(cookie));
  assert.equal(replayed.status, 401, "the replayed cookie cannot mint a token");
  assert.equal(replayed.body.error, "unauthenticated");
  assert.equal((await server.api("GET", "/api/v1/clusters", undefined, asSession(cookie))).status, 401);
  const page = await server.api("GET", "/settings", undefined, asSession(cookie));
  assert.ok(page.status >= 300 && page.status < 400, `a page sends it to sign-in (${page.status})`);
  assert.match(String(page.headers.location), /\/login/);
  const audit = await server.api("GET", "/api/v1/audit?action=auth.sign_out");
  assert.ok(
    audit.body.items.some((e: { actorLabel?: string; actor?: { label?: string } }) => JSON.stringify(e).includes(user.email)),
  );
  // Another session of the same user is untouched.
  const other = await sessionCookie(server.consoleUrl, user);
  assert.equal((await server.api("GET", "/api/v1/clusters", undefined, asSession(other))).status, 200);
});

test("a copy of the data dir and database cannot make a session cookie that works", async () => {
  // What a copy holds: the signing secret beside the database, and the admin's row.
  const secret = readFileSync(path.join(server.dataDir, "auth-secret"), "utf8").trim();
  const [admin] = await server.db.query<{ id: string; sessionVersion: number }>(
    `SELECT id, "sessionVersion" FROM "User" WHERE email = ${server.db.engine === "sqlite" ? "?" : "$1"}`,
    [ADMIN.email],
  );
  assert.ok(admin);
  // That secret is the one the server signs with: it opens a real session cookie.
  const real = await sessionCookie(server.consoleUrl, ADMIN);
  assert.equal((await decode({ token: real.replace(/^next-auth\.session-token=/, ""), secret }))?.uid, admin.id);

  const forged = await encode({
    token: { uid: admin.id, sid: randomUUID(), sv: Number(admin.sessionVersion), authAt: Math.floor(Date.now() / 1000) },
    secret,
  });
  const res = await server.api("GET", "/api/v1/clusters", undefined, asSession(`next-auth.session-token=${forged}`));
  assert.equal(res.status, 401);
});

test("a password change by an admin ends the user's sessions; a role change applies at once", async () => {
  const user = await addUser("rotate@example.com", "operator");
  const cookie = await sessionCookie(server.consoleUrl, user);
  assert.equal((await mint(asSession(cookie))).status, 201);
  const changed = await server.api("PATCH", `/api/v1/users/${user.id}`, { password: "another-long-password" });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assert.equal((await mint(asSession(cookie))).status, 401, "old session cannot mutate");
  assert.equal((await server.api("GET", "/api/v1/clusters", undefined, asSession(cookie))).status, 401, "nor read");
  assert.equal((await signIn(server.consoleUrl, user)).status, 401, "the old password is gone");
  const fresh = await sessionCookie(server.consoleUrl, { email: user.email, password: "another-long-password" });
  assert.equal((await mint(asSession(fresh))).status, 201);

  const demoted = await server.api("PATCH", `/api/v1/users/${user.id}`, { role: "viewer" });
  assert.equal(demoted.status, 200);
  const refused = await mint(asSession(fresh));
  assert.equal(refused.status, 403, "the role change applies to the open session at once");
  assert.equal(refused.body.error, "forbidden");
  assert.equal((await server.api("GET", "/api/v1/clusters", undefined, asSession(fresh))).status, 200, "still a viewer");
});

test("an API key acts with at most its creator's current role and stops when the creator is disabled", async () => {
  const creator = await addUser("keymaker@example.com", "admin");
  const cookie = await sessionCookie(server.consoleUrl, creator);
  const made = await server.api("POST", "/api/v1/api-keys", { name: "deploy-bot", role: "admin" }, asSession(cookie));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const key = made.body.key as string;
  assert.equal((await mint(asKey(key))).status, 201);
  const keyMintsKey = await server.api("POST", "/api/v1/api-keys", { name: "child", role: "admin" }, asKey(key));
  assert.equal(keyMintsKey.status, 403, "a key cannot mint keys (a child would outlive its parent)");

  assert.equal((await server.api("PATCH", `/api/v1/users/${creator.id}`, { role: "viewer" })).status, 200);
  const demoted = await mint(asKey(key));
  assert.equal(demoted.status, 403, "the creator is a viewer now, so is the key");
  assert.equal(demoted.body.error, "forbidden");
  const makeAdmin = await server.api(
    "POST",
    "/api/v1/users",
    { email: "x@example.com", password: "a-long-password-1", role: "admin" },
    asKey(key),
  );
  assert.equal(makeAdmin.status, 403, "nor can it create admins");
  assert.equal((await server.api("GET", "/api/v1/clusters", undefined, asKey(key))).status, 200, "it still reads");
  let listed = (await server.api("GET", "/api/v1/api-keys")).body.items.find((k: { name: string }) => k.name === "deploy-bot");
  assert.equal(listed.effectiveRole, "viewer");
  assert.equal(listed.createdBy.email, creator.email);

  assert.equal((await server.api("PATCH", `/api/v1/users/${creator.id}`, { disabled: true })).status, 200);
  const disabled = await server.api("GET", "/api/v1/clusters", undefined, asKey(key));
  assert.equal(disabled.status, 401);
  assert.equal(disabled.body.error, "unauthenticated");
  assert.match(disabled.body.message, /keymaker@example\.com\) is disabled/);
  listed = (await server.api("GET", "/api/v1/api-keys")).body.items.find((k: { name: string }) => k.name === "deploy-bot");
  assert.equal(listed.status, "creator_disabled");
  assert.equal(listed.createdBy.disabled, true);
  const audit = await server.api("GET", "/api/v1/audit?action=user.update");
  assert.ok(JSON.stringify(audit.body).includes("deploy-bot"), "disabling names the keys that stop working");
});

test("open live-event streams close within 5 s of sign-out, disabling, a password change, a key's revocation or its creator's disabling", async () => {
  const signedOut = await addUser("sse-out@example.com", "viewer");
  const disabled = await addUser("sse-disabled@example.com", "viewer");
  const repassworded = await addUser("sse-password@example.com", "viewer");
  const keyOwner = await addUser("sse-keyowner@example.com", "admin");
  const cookies = {
    signedOut: await sessionCookie(server.consoleUrl, signedOut),
    disabled: await sessionCookie(server.consoleUrl, disabled),
    repassworded: await sessionCookie(server.consoleUrl, repassworded),
    keyOwner: await sessionCookie(server.consoleUrl, keyOwner),
  };
  const newKey = async (name: string) =>
    (await server.api("POST", "/api/v1/api-keys", { name, role: "viewer" }, asSession(cookies.keyOwner))).body as {
      id: string;
      key: string;
    };
  const revokedKey = await newKey("sse-revoked");
  const orphanKey = await newKey("sse-orphan");

  const streams = {
    signedOut: await openStream({ cookie: cookies.signedOut }),
    disabled: await openStream({ cookie: cookies.disabled }),
    repassworded: await openStream({ cookie: cookies.repassworded }),
    revokedKey: await openStream({ authorization: `Bearer ${revokedKey.key}` }),
    orphanKey: await openStream({ authorization: `Bearer ${orphanKey.key}` }),
  };
  for (const [name, s] of Object.entries(streams)) assert.equal(s.status, 200, name);

  // Each stream must close within 5 s of the moment its change was made.
  const done = async (action: Promise<number>, expected = 200) => {
    assert.equal(await action, expected);
    return Date.now();
  };
  const status = (p: Promise<{ status: number }>) => p.then((r) => r.status);
  const at = {
    signedOut: await done(signOut(server.consoleUrl, cookies.signedOut)),
    disabled: await done(status(server.api("PATCH", `/api/v1/users/${disabled.id}`, { disabled: true }))),
    repassworded: await done(
      status(server.api("PATCH", `/api/v1/users/${repassworded.id}`, { password: "brand-new-password-9" })),
    ),
    revokedKey: await done(status(server.api("DELETE", `/api/v1/api-keys/${revokedKey.id}`))),
    orphanKey: await done(status(server.api("PATCH", `/api/v1/users/${keyOwner.id}`, { disabled: true }))),
  };
  const times = {
    signedOut: await closesWithin(streams.signedOut, at.signedOut, 5000, "signed out"),
    disabled: await closesWithin(streams.disabled, at.disabled, 5000, "user disabled"),
    repassworded: await closesWithin(streams.repassworded, at.repassworded, 5000, "password changed"),
    revokedKey: await closesWithin(streams.revokedKey, at.revokedKey, 5000, "key revoked"),
    orphanKey: await closesWithin(streams.orphanKey, at.orphanKey, 5000, "key's creator disabled"),
  };
  process.stdout.write(`# stream close times (ms): ${JSON.stringify(times)}\n`);
});
