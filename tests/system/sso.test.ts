// Single sign-on against a real OpenID Provider on loopback (tests/helpers/oidc-provider.ts), on
// the engine TEST_ENGINE selects: the browser's part (redirects, the provider's login and consent
// forms, cookies) is played over plain HTTP. Covers what the Chromium spec (e2e/ui/sso.spec.ts)
// cannot look inside: the ID token really lacks the email, the audit rows, email linking.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { decode } from "next-auth/jwt";
import { ADMIN, freePort, startFleetServer, type FleetServer } from "../helpers/fleet-server";
import { startOidcProvider, type SsoPerson } from "../helpers/oidc-provider";

const AUTH_SECRET = "sso-integration-test-secret-of-at-least-32-chars";
const CLIENT = { clientId: "fleet-sso-test", clientSecret: "sso-test-client-secret-long-enough" };
const PEOPLE: Record<string, SsoPerson> = {
  alice: { email: "alice@idp.test", name: "Alice Userinfo", groups: ["staff"] },
  bob: { email: "bob@idp.test", name: "Bob Ops", groups: ["platform-ops"] },
  carol: { email: "carol@idp.test", name: "Carol Disabled", groups: [] },
  // Claims the email of a password account, but the provider has not verified it.
  mallory: { email: "owner@fleet.test", name: "Mallory", groups: ["platform-admins"], emailVerified: false },
  owner: { email: "owner@fleet.test", name: "The Owner", groups: [] },
  // Their provider never says whether an email is verified.
  eve: { email: "quiet@fleet.test", name: "Eve", groups: [], emailVerified: null },
  frank: { email: "frank@idp.test", name: "Frank", groups: [], emailVerified: null },
  dave: { email: "dave@idp.test", name: "Dave Nogroup", groups: ["staff"] },
  // The admin's address, verified, held by someone the mapping makes a viewer.
  mimic: { email: ADMIN.email, name: "Mimic", groups: [] },
  // Alice's address, verified, now held by another person at the provider (a recycled address).
  newalice: { email: "alice@idp.test", name: "New Alice", groups: [] },
  // Two people whose subjects differ only in case, neither with a verified email.
  CaseSub: { email: "case-upper@idp.test", name: "Case Upper", groups: [], emailVerified: null },
  casesub: { email: "case-lower@idp.test", name: "Case Lower", groups: [], emailVerified: null },
};

let server: FleetServer;
let provider: Awaited<ReturnType<typeof startOidcProvider>>;

before(async () => {
  const ports = { console: await freePort(), agent: await freePort() };
  provider = await startOidcProvider({ port: 0, consoleUrl: `http://127.0.0.1:${ports.console}`, people: PEOPLE, ...CLIENT });
  server = await startFleetServer(
    { AUTH_SECRET, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT.clientId, OIDC_CLIENT_SECRET: CLIENT.clientSecret },
    { ports },
  );
});
after(async () => {
  await server?.stop();
  await provider?.stop();
});

/** A browser's cookie jar: one host (127.0.0.1), so the console's and the provider's cookies share it. */
class Browser {
  private readonly jar = new Map<string, string>();

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const res = await fetch(url, {
      method: init.method ?? (init.form ? "POST" : "GET"),
      redirect: "manual",
      headers: {
        cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join("; "),
        origin: new URL(url).origin,
        ...(init.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const [name, ...rest] = pair!.split("=");
      const value = rest.join("=");
      const expired = attrs.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (!value || expired) this.jar.delete(name!.trim());
      else this.jar.set(name!.trim(), value);
    }
    return res;
  }

  /** Follows redirects until a page answers; returns its URL and text. */
  async follow(url: string, init: { form?: Record<string, string> } = {}): Promise<{ url: string; text: string }> {
    let res = await this.request(url, init);
    let at = url;
    for (let hops = 0; res.status >= 300 && res.status < 400; hops++) {
      assert.ok(hops < 20, `too many redirects from ${url}`);
      at = new URL(res.headers.get("location")!, at).toString();
      res = await this.request(at);
    }
    return { url: at, text: await res.text() };
  }
}

function formAction(html: string, issuer: string): string {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  assert.ok(action, `no form in: ${html.slice(0, 300)}`);
  return new URL(action.replace(/&amp;/g, "&"), issuer).toString();
}

/** The SSO button, the provider's login form (any password) and consent, back to the console. */
async function ssoSignIn(login: string): Promise<{ browser: Browser; landed: URL }> {
  const browser = new Browser();
  const csrf = (await (await browser.request(`${server.consoleUrl}/api/auth/csrf`)).json()) as { csrfToken: string };
  const start = await browser.request(`${server.consoleUrl}/api/auth/signin/oidc`, {
    form: { csrfToken: csrf.csrfToken, callbackUrl: "/", json: "true" },
  });
  const { url } = (await start.json()) as { url: string };
  assert.ok(url.startsWith(`${provider.issuer}/auth?`), url);
  let pageAt = await browser.follow(url);
  pageAt = await browser.follow(formAction(pageAt.text, provider.issuer), {
    form: { prompt: "login", login, password: "anything" },
  });
  if (pageAt.url.startsWith(provider.issuer)) {
    pageAt = await browser.follow(formAction(pageAt.text, provider.issuer), { form: { prompt: "consent" } });
  }
  return { browser, landed: new URL(pageAt.url) };
}

const param = () => (server.db.engine === "sqlite" ? "?" : "$1");
const session = (b: Browser) => b.cookie("next-auth.session-token");

async function userByEmail(email: string) {
  const res = await server.api("GET", "/api/v1/users");
  return (res.body.items as { id: string; email: string; name: string | null; role: string; sso: boolean }[]).find(
    (u) => u.email === email,
  );
}

async function setMapping(mapping: unknown) {
  const res = await server.api("PATCH", "/api/v1/settings", { ssoRoleMapping: mapping });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

test("email and name only userinfo carries land on the new user, a viewer", async () => {
  const { browser, landed } = await ssoSignIn("alice");
  assert.equal(landed.pathname, "/");
  const raw = session(browser);
  assert.ok(raw, "no session cookie");

  // The provider left them out of the ID token (spec-conformant): only userinfo had them.
  const token = await decode({ token: raw, secret: AUTH_SECRET });
  const idToken = JSON.parse(Buffer.from(String(token?.idToken).split(".")[1]!, "base64url").toString()) as Record<
    string,
    unknown
  >;
  assert.equal(idToken.sub, "alice");
  assert.equal(idToken.email, undefined);
  assert.equal(idToken.name, undefined);

  const user = await userByEmail("alice@idp.test");
  assert.deepEqual({ name: user?.name, role: user?.role, sso: user?.sso }, { name: "Alice Userinfo", role: "viewer", sso: true });
  const me = await server.api("GET", "/api/v1/clusters", undefined, { cookie: `next-auth.session-token=${raw}` });
  assert.equal(me.status, 200);
  const rows = await server.db.query<{ action: string }>(
    `SELECT action FROM "AuditLog" WHERE "targetId" = ${param()} ORDER BY id`,
    [user!.id],
  );
  assert.deepEqual(
    rows.map((r) => r.action),
    ["user.create", "auth.sign_in"],
  );
});

test("a role mapping sets the role at each sign-in and refuses console edits; without one, edits stand", async () => {
  await setMapping({ claim: "groups", rules: [{ value: "platform-ops", role: "operator" }], defaultRole: "viewer" });
  await ssoSignIn("bob");
  const bob = await userByEmail("bob@idp.test");
  assert.equal(bob?.role, "operator");

  const refused = await server.api("PATCH", `/api/v1/users/${bob!.id}`, { role: "admin" });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error, "role_managed_by_sso");
  // Disabling is still the admin's to do (only the role is the provider's).
  assert.equal((await server.api("PATCH", `/api/v1/users/${bob!.id}`, { disabled: false })).status, 200);

  await setMapping({ claim: "groups", rules: [{ value: "platform-ops", role: "admin" }], defaultRole: "viewer" });
  await ssoSignIn("bob");
  assert.equal((await userByEmail("bob@idp.test"))?.role, "admin");
  const changes = await server.db.query<{ details: string }>(
    `SELECT details FROM "AuditLog" WHERE action = 'user.update' AND "targetId" = ${param()} ORDER BY id`,
    [bob!.id],
  );
  // The sign-in that changed the role says so (the admin's disabled: false above is an update too).
  assert.deepEqual(
    changes.map((c) => JSON.parse(c.details) as { role?: unknown; via?: unknown }).filter((d) => d.role),
    [{ email: "bob@idp.test", via: "oidc", role: { from: "operator", to: "admin" }, roleFrom: "groups" }],
  );

  await setMapping(null);
  assert.equal((await server.api("PATCH", `/api/v1/users/${bob!.id}`, { role: "viewer" })).status, 200);
  await ssoSignIn("bob");
  assert.equal((await userByEmail("bob@idp.test"))?.role, "viewer");
});

test("a disabled user is sent back to the login page with the reason, and gets no session", async () => {
  await ssoSignIn("carol");
  const carol = await userByEmail("carol@idp.test");
  assert.equal((await server.api("PATCH", `/api/v1/users/${carol!.id}`, { disabled: true })).status, 200);
  const { browser, landed } = await ssoSignIn("carol");
  assert.equal(landed.pathname, "/login");
  assert.equal(landed.searchParams.get("error"), "SsoAccountDisabled");
  assert.equal(session(browser), undefined);
});

test("an unverified email does not take over the password account that has it; a verified one links to it", async () => {
  const created = await server.api("POST", "/api/v1/users", {
    email: "owner@fleet.test",
    password: "owner-password-long",
    role: "viewer",
  });
  assert.equal(created.status, 201);
  const mallory = await ssoSignIn("mallory");
  assert.equal(mallory.landed.searchParams.get("error"), "SsoEmailNotVerified");
  assert.equal(session(mallory.browser), undefined);
  assert.equal((await userByEmail("owner@fleet.test"))?.sso, false);
  const attempts = await server.db.query<{ actorLabel: string; details: string }>(
    `SELECT "actorLabel", details FROM "AuditLog" WHERE action = 'auth.signin_failed' AND "targetId" = ${param()}`,
    [created.body.id],
  );
  assert.deepEqual(
    attempts.map((a) => ({ actor: a.actorLabel, reason: (JSON.parse(a.details) as { reason: string }).reason })),
    [{ actor: "oidc:mallory", reason: "email_not_verified" }],
  );

  const owner = await ssoSignIn("owner");
  assert.equal(owner.landed.pathname, "/");
  const linked = await userByEmail("owner@fleet.test");
  assert.deepEqual(
    { id: linked?.id, sso: linked?.sso, name: linked?.name },
    { id: created.body.id, sso: true, name: "The Owner" },
  );
});

test("signing out sends the browser to the provider's end-session endpoint and ends our session", async () => {
  const { browser } = await ssoSignIn("alice");
  const raw = session(browser)!;
  const csrf = (await (await browser.request(`${server.consoleUrl}/api/auth/csrf`)).json()) as { csrfToken: string };
  const res = await browser.request(`${server.consoleUrl}/api/auth/signout`, {
    form: { csrfToken: csrf.csrfToken, callbackUrl: "/login", json: "true" },
  });
  assert.equal(res.status, 200);
  const url = new URL(((await res.json()) as { url: string }).url);
  assert.equal(`${url.origin}${url.pathname}`, `${provider.issuer}/session/end`);
  assert.equal(url.searchParams.get("post_logout_redirect_uri"), `${server.consoleUrl}/login`);
  assert.equal(url.searchParams.get("client_id"), CLIENT.clientId);
  assert.ok(url.searchParams.get("id_token_hint")?.startsWith("eyJ"));
  assert.equal(session(browser), undefined);
  const replay = await server.api("GET", "/api/v1/clusters", undefined, { cookie: `next-auth.session-token=${raw}` });
  assert.equal(replay.status, 401);

  // The provider confirms, ends its session and sends the browser back to our sign-in page.
  const confirm = await browser.follow(url.toString());
  const back = await browser.follow(formAction(confirm.text, provider.issuer), {
    form: Object.fromEntries(
      [...confirm.text.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    ),
  });
  assert.equal(back.url.split("?")[0], `${server.consoleUrl}/login`);
});

test("an email the provider does not mark verified links and names no account, until an admin trusts its emails", async () => {
  const created = await server.api("POST", "/api/v1/users", {
    email: "quiet@fleet.test",
    password: "quiet-password-long",
    role: "operator",
  });
  assert.equal(created.status, 201);
  const eve = await ssoSignIn("eve");
  assert.equal(eve.landed.searchParams.get("error"), "SsoEmailNotVerified");
  assert.equal(session(eve.browser), undefined);
  assert.equal((await userByEmail("quiet@fleet.test"))?.sso, false);
  // Nobody holds Frank's address: he gets in, but the address is not taken as his.
  const frank = await ssoSignIn("frank");
  assert.equal(frank.landed.pathname, "/");
  assert.equal(await userByEmail("frank@idp.test"), undefined);
  const [frankRow] = await server.db.query<{ email: string }>(`SELECT email FROM "User" WHERE "oidcSubject" = ${param()}`, [
    "frank",
  ]);
  assert.match(frankRow?.email ?? "", /^sso-[0-9a-f]{32}@oidc\.invalid$/, "a placeholder address");

  const trust = await server.api("PATCH", "/api/v1/settings", { ssoTrustedEmailIssuer: provider.issuer });
  assert.equal(trust.status, 200, JSON.stringify(trust.body));
  try {
    const trusted = await ssoSignIn("eve");
    assert.equal(trusted.landed.pathname, "/");
    const linked = await userByEmail("quiet@fleet.test");
    assert.deepEqual(
      { id: linked?.id, sso: linked?.sso, role: linked?.role },
      { id: created.body.id, sso: true, role: "operator" },
    );
    await ssoSignIn("frank");
    assert.equal((await userByEmail("frank@idp.test"))?.name, "Frank");
  } finally {
    assert.equal((await server.api("PATCH", "/api/v1/settings", { ssoTrustedEmailIssuer: null })).status, 200);
  }
});

test("a verified email does not move an account another identity at the provider signs in to", async () => {
  await ssoSignIn("alice");
  const before = await userByEmail("alice@idp.test");
  const { browser, landed } = await ssoSignIn("newalice");
  assert.equal(landed.searchParams.get("error"), "SsoEmailLinked");
  assert.equal(session(browser), undefined);
  const [row] = await server.db.query<{ oidcSubject: string }>(`SELECT "oidcSubject" FROM "User" WHERE id = ${param()}`, [
    before!.id,
  ]);
  assert.equal(row?.oidcSubject, "alice");
});

test("linking by email never keeps the last admin an admin against the mapping", async () => {
  await setMapping({ claim: "groups", rules: [{ value: "platform-admins", role: "admin" }], defaultRole: "viewer" });
  try {
    const { browser, landed } = await ssoSignIn("mimic");
    assert.equal(landed.searchParams.get("error"), "SsoLastAdminUnmapped");
    assert.equal(session(browser), undefined);
    assert.deepEqual(await userByEmail(ADMIN.email).then((u) => ({ role: u?.role, sso: u?.sso })), { role: "admin", sso: false });
  } finally {
    await setMapping(null);
  }
});

test("a mapping whose default role is none refuses whoever is in no mapped group", async () => {
  await setMapping({ claim: "groups", rules: [{ value: "platform-ops", role: "operator" }], defaultRole: "none" });
  try {
    const { browser, landed } = await ssoSignIn("dave");
    assert.equal(landed.pathname, "/login");
    assert.equal(landed.searchParams.get("error"), "SsoNoRole");
    assert.equal(session(browser), undefined);
    assert.equal(await userByEmail("dave@idp.test"), undefined);
    const bob = await ssoSignIn("bob");
    assert.equal(bob.landed.pathname, "/");
    assert.equal((await userByEmail("bob@idp.test"))?.role, "operator");
  } finally {
    await setMapping(null);
  }
});

test("an ID token issued for another authorization request (its nonce) is refused", async () => {
  provider.swapNonce(true);
  try {
    const { browser, landed } = await ssoSignIn("alice");
    assert.equal(landed.pathname, "/login");
    assert.ok(landed.searchParams.get("error"), landed.toString());
    assert.equal(session(browser), undefined);
  } finally {
    provider.swapNonce(false);
  }
  assert.equal((await ssoSignIn("alice")).landed.pathname, "/");
});

test("subjects that differ only in case are two people, each with a placeholder address of their own", async () => {
  const upper = await ssoSignIn("CaseSub");
  assert.equal(upper.landed.pathname, "/", upper.landed.toString());
  assert.ok(session(upper.browser));
  const lower = await ssoSignIn("casesub");
  assert.equal(lower.landed.toString(), `${server.consoleUrl}/`, "no error, and no error text in the URL");
  assert.ok(session(lower.browser));
  const p = server.db.engine === "sqlite" ? ["?", "?"] : ["$1", "$2"];
  const rows = await server.db.query<{ email: string; oidcSubject: string }>(
    `SELECT email, "oidcSubject" FROM "User" WHERE "oidcSubject" IN (${p[0]}, ${p[1]}) ORDER BY "oidcSubject"`,
    ["CaseSub", "casesub"],
  );
  assert.deepEqual(
    rows.map((r) => r.oidcSubject),
    ["CaseSub", "casesub"],
  );
  assert.notEqual(rows[0]!.email, rows[1]!.email);
  for (const r of rows) assert.match(r.email, /^sso-[0-9a-f]{32}@oidc\.invalid$/);
  // Each signs in again to their own account.
  await ssoSignIn("CaseSub");
  const again = await server.db.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM "User" WHERE "oidcSubject" IN (${p[0]}, ${p[1]})`,
    ["CaseSub", "casesub"],
  );
  assert.equal(Number(again[0]!.n), 2);
});

test("no error text reaches a URL: next-auth's error redirects carry only known codes", async () => {
  const text = "Invalid `prisma.user.create()` invocation: Unique constraint failed on the fields: (`email`)";
  for (const error of [encodeURIComponent(text), "Callback%26leak%3DSELECT", "SsoNoRole"]) {
    const res = await fetch(`${server.consoleUrl}/api/auth/error?error=${error}`, { redirect: "manual" });
    assert.equal(res.status, 302, error);
    const location = new URL(res.headers.get("location")!, server.consoleUrl);
    assert.equal(location.pathname, "/login");
    assert.equal(location.search, error === "SsoNoRole" ? "?error=SsoNoRole" : "?error=Callback", location.toString());
  }
});
