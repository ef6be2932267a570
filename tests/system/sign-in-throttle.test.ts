// Sign-in throttling (locks per account and client address and per address, a per-account
// slowdown, all shared through the database), an admin clearing a lock, the client address behind
// trusted proxies only, and next-auth's redirect target, against the real server.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { signIn } from "../helpers/console-session";
import { ADMIN, startFleetServer, type FleetServer } from "../helpers/fleet-server";

type AuditRow = { action: string; details: string };

async function auditRows(server: FleetServer, action: string): Promise<{ details: Record<string, unknown> }[]> {
  const p = server.db.engine === "sqlite" ? "?" : "$1";
  const rows = await server.db.query<AuditRow>(`SELECT action, details FROM "AuditLog" WHERE action = ${p} ORDER BY id`, [
    action,
  ]);
  return rows.map((r) => ({ details: JSON.parse(r.details) as Record<string, unknown> }));
}

async function throttleKeys(server: FleetServer): Promise<string[]> {
  return (await server.db.query<{ key: string }>(`SELECT key FROM "LoginThrottle"`)).map((r) => r.key);
}

/** Signs in from `address` once its lock has ended (a refused try is not counted, so it is waited out). */
async function signInOnceUnlocked(consoleUrl: string, credentials: { email: string; password: string }, address: string) {
  for (let attempt = 0; attempt < 10; attempt++) {
    const res = await signIn(consoleUrl, credentials, { localAddress: address });
    if (res.status !== 429) return res;
    await new Promise((r) => setTimeout(r, Number(res.headers["retry-after"]) * 1000 + 100));
  }
  throw new Error(`${address} stayed locked`);
}

describe("without trusted proxies", () => {
  let server: FleetServer;
  before(async () => {
    server = await startFleetServer();
  });
  after(async () => {
    await server?.stop();
  });

  test("an account locks after 5 wrong passwords: 429 with Retry-After, even for the right password, until the lock ends", async () => {
    const account = { email: "locked@example.com", password: "the-right-password-1" };
    assert.equal((await server.api("POST", "/api/v1/users", { ...account, role: "viewer" })).status, 201);
    const wrong = { email: account.email, password: "wrong-password" };
    for (let i = 1; i <= 5; i++) {
      const res = await signIn(server.consoleUrl, wrong);
      assert.equal(res.status, 401, `wrong password #${i}`);
      assert.equal(res.cookie, null);
    }
    const locked = await signIn(server.consoleUrl, wrong);
    assert.equal(locked.status, 429, "the sixth try is refused without a password check");
    assert.equal(locked.body.error, "rate_limited");
    assert.match(locked.body.message, /^Too many attempts; try again in \d+ seconds?\.$/);
    const retryAfter = Number(locked.headers["retry-after"]);
    assert.ok(retryAfter >= 1 && retryAfter <= 2, `Retry-After ${locked.headers["retry-after"]}`);

    const rightWhileLocked = await signIn(server.consoleUrl, account);
    assert.equal(rightWhileLocked.status, 429, "the right password is refused while locked");
    assert.equal(rightWhileLocked.cookie, null);

    await new Promise((r) => setTimeout(r, Number(rightWhileLocked.headers["retry-after"]) * 1000 + 250));
    const after = await signIn(server.consoleUrl, account);
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.ok(after.cookie, "signed in once the lock ended");
    assert.ok(!(await throttleKeys(server)).includes("account:locked@example.com"), "a success resets the account");

    const failures = (await auditRows(server, "auth.signin_failed")).filter((r) => r.details.email === account.email);
    assert.equal(failures.length, 5, "each checked failure audited, the refused ones not checked");
    for (const f of failures) {
      assert.equal(f.details.address, "127.0.0.1");
      assert.equal(f.details.reason, "wrong_password");
      assert.ok(!JSON.stringify(f.details).includes("wrong-password"), "never the password");
    }
    const locks = (await auditRows(server, "auth.signin_locked")).filter((r) => r.details.account === account.email);
    assert.equal(locks.length, 1);
    assert.equal(locks[0]!.details.lockSeconds, 2);
  });

  test("X-Forwarded-For from an untrusted peer is ignored: the peer's address is counted", async () => {
    const res = await signIn(
      server.consoleUrl,
      { email: "nobody@example.com", password: "whatever-password" },
      { headers: { "x-forwarded-for": "127.0.0.9" } },
    );
    assert.equal(res.status, 401);
    const failure = (await auditRows(server, "auth.signin_failed")).find((r) => r.details.email === "nobody@example.com");
    assert.equal(failure?.details.address, "127.0.0.1");
    assert.equal(failure?.details.reason, "unknown_account");
    const keys = await throttleKeys(server);
    assert.ok(keys.includes("address:127.0.0.1"));
    assert.ok(!keys.some((k) => k.includes("127.0.0.9")), keys.join(","));
  });

  test("a foreign or malformed callbackUrl is ignored: the redirect stays on the console, never a 500", async () => {
    for (const callbackUrl of [
      "http://127.0.0.1:3910.evil.example/",
      "https://evil.example/",
      "//evil.example/x",
      "::garbage::",
    ]) {
      const ok = await signIn(server.consoleUrl, ADMIN, { fields: { callbackUrl } });
      assert.equal(ok.status, 200, `${callbackUrl}: ${JSON.stringify(ok.body)}`);
      assert.ok(ok.cookie);
      const target = new URL(ok.body.url);
      assert.equal(target.origin, server.consoleUrl, `${callbackUrl} -> ${ok.body.url}`);
    }
    const sameOrigin = await signIn(server.consoleUrl, ADMIN, { fields: { callbackUrl: "/clusters?status=Ready" } });
    assert.equal(sameOrigin.body.url, `${server.consoleUrl}/clusters?status=Ready`);
    const wrong = await signIn(
      server.consoleUrl,
      { email: ADMIN.email, password: "not-it" },
      { fields: { callbackUrl: "http://127.0.0.1:3910.evil.example/" } },
    );
    assert.equal(wrong.status, 401);
  });

  // Below: clients at other loopback addresses (a real peer address each, no proxy involved).
  const ATTACKER = "127.0.0.66";
  const CLEAN = "127.0.0.77";

  test("wrong passwords from one address lock that address out of the account, not its owner elsewhere; the lock is audited and an admin clears it", async () => {
    const wrong = { email: ADMIN.email, password: "not-the-admin-password" };
    for (let i = 1; i <= 5; i++) {
      const res = await signIn(server.consoleUrl, wrong, { localAddress: ATTACKER });
      assert.equal(res.status, 401, `wrong password #${i}`);
    }
    const locked = await signIn(server.consoleUrl, wrong, { localAddress: ATTACKER });
    assert.equal(locked.status, 429, "the failing address is locked");
    assert.equal(locked.body.error, "rate_limited");
    const rightFromThere = await signIn(server.consoleUrl, ADMIN, { localAddress: ATTACKER });
    assert.equal(rightFromThere.status, 429, "even the right password, from the locked address");
    assert.equal(rightFromThere.cookie, null);
    // Each failure after a lock ends locks twice as long (2 s, 4 s, 8 s): wait out two locks so the
    // rest of the test runs well inside the third, however slow the machine.
    for (const failures of [6, 7]) {
      const waited = await signInOnceUnlocked(server.consoleUrl, wrong, ATTACKER);
      assert.equal(waited.status, 401, `wrong password #${failures}, once the lock ended`);
    }

    const started = performance.now();
    const owner = await signIn(server.consoleUrl, ADMIN, { localAddress: CLEAN });
    assert.equal(owner.status, 200, `the owner, from a clean address: ${JSON.stringify(owner.body)}`);
    assert.ok(owner.cookie, "signed in");
    assert.ok(performance.now() - started < 10_000, "slowed at most a few seconds");
    const stillLocked = await signIn(server.consoleUrl, wrong, { localAddress: ATTACKER });
    assert.equal(stillLocked.status, 429, "the owner's success does not unlock the attacker's address");

    const lock = (await auditRows(server, "auth.signin_locked")).filter((r) => r.details.account === ADMIN.email).at(-1);
    assert.deepEqual(
      { address: lock?.details.address, failures: lock?.details.failures, lockSeconds: lock?.details.lockSeconds },
      { address: ATTACKER, failures: 7, lockSeconds: 8 },
      "the (account, address) lock is audited",
    );
    const users = await server.api("GET", "/api/v1/users");
    const admin = (users.body.items as { id: string; email: string; lockedFrom: string[] }[]).find(
      (u) => u.email === ADMIN.email,
    )!;
    assert.deepEqual(admin.lockedFrom, [ATTACKER], "the Users list says where the account is locked from");

    const cleared = await server.api("DELETE", `/api/v1/users/${admin.id}/sign-in-locks`);
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.deepEqual(cleared.body.cleared, [ATTACKER]);
    const unlocked = (await auditRows(server, "auth.signin_unlocked")).at(-1);
    assert.deepEqual(unlocked?.details, { email: ADMIN.email, addresses: [ATTACKER] }, "the clearing is audited");
    const after = await signIn(server.consoleUrl, ADMIN, { localAddress: ATTACKER });
    assert.equal(after.status, 200, "cleared: the address signs in again");
    const listed = (await server.api("GET", "/api/v1/users")).body.items as { email: string; lockedFrom: string[] }[];
    assert.deepEqual(listed.find((u) => u.email === ADMIN.email)?.lockedFrom, []);
  });

  test("failures spread over many addresses only slow the account: the right password still signs in, after a capped delay", async () => {
    const account = { email: "sprayed@example.com", password: "the-right-password-2" };
    assert.equal((await server.api("POST", "/api/v1/users", { ...account, role: "viewer" })).status, 201);
    for (let i = 0; i < 8; i++) {
      const res = await signIn(
        server.consoleUrl,
        { ...account, password: "wrong-password" },
        { localAddress: `127.0.1.${i + 1}` },
      );
      assert.equal(res.status, 401, `failure from 127.0.1.${i + 1}`);
    }
    const started = performance.now();
    const owner = await signIn(server.consoleUrl, account, { localAddress: CLEAN });
    const waited = performance.now() - started;
    assert.equal(owner.status, 200, `never a lock from a clean address: ${JSON.stringify(owner.body)}`);
    assert.ok(waited >= 3_500, `eight failures slow each sign-in of the account by 4 s (waited ${Math.round(waited)} ms)`);
    assert.ok(
      !(await auditRows(server, "auth.signin_locked")).some((r) => r.details.account === account.email),
      "no (account, address) pair failed often enough to lock",
    );
  });
});

describe("behind a trusted proxy (TRUSTED_PROXY_CIDRS)", () => {
  let server: FleetServer;
  before(async () => {
    server = await startFleetServer({ TRUSTED_PROXY_CIDRS: "127.0.0.1/32" });
  });
  after(async () => {
    await server?.stop();
  });

  test("an address locks after 20 failures across accounts; other addresses still sign in", async () => {
    const from = (ip: string) => ({ headers: { "x-forwarded-for": `127.0.0.200, ${ip}` } });
    for (let i = 0; i < 20; i++) {
      const res = await signIn(
        server.consoleUrl,
        { email: `guess-${i}@example.com`, password: "guess-password" },
        from("127.0.0.7"),
      );
      assert.equal(res.status, 401, `failure #${i + 1}`);
    }
    const blocked = await signIn(server.consoleUrl, ADMIN, from("127.0.0.7"));
    assert.equal(blocked.status, 429, "the right password of another account, from the locked address");
    assert.ok(Number(blocked.headers["retry-after"]) >= 1);
    const elsewhere = await signIn(server.consoleUrl, ADMIN, from("127.0.0.8"));
    assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
    const failures = await auditRows(server, "auth.signin_failed");
    assert.equal(failures.length, 20);
    assert.ok(
      failures.every((f) => f.details.address === "127.0.0.7"),
      "the client address, not the proxy's",
    );
  });

  test("the same-origin check takes the console's origin from configuration, not from X-Forwarded-Host, even a trusted proxy's", async () => {
    const proxied = { "x-forwarded-host": "console.example.test", "x-forwarded-proto": "https" };
    const named = await server.api(
      "POST",
      "/api/v1/registration-tokens",
      { name: "via-proxy" },
      { headers: { ...proxied, origin: "https://console.example.test" } },
    );
    assert.equal(named.status, 403, "the proxy's Host is not the console's origin");
    assert.equal(named.body.error, "csrf_rejected");
    const configured = await server.api("POST", "/api/v1/registration-tokens", { name: "via-proxy-2" }, { headers: proxied });
    assert.equal(configured.status, 201, `the configured origin (here its loopback address): ${JSON.stringify(configured.body)}`);
  });
});
