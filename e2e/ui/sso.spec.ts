// Single sign-on in Chromium against a real OpenID Provider on loopback (e2e/support/oidc-provider.ts,
// started by the config): the button, the provider's own login form and consent, the way back;
// email and name that only userinfo carries; roles from the groups claim; a disabled user refused;
// sign-out that ends the provider's session too.
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, BrowserContext, Page } from "@playwright/test";
import { asRole, BASE_URL, expect, expectApiError, SAME_ORIGIN, SESSION_COOKIE, test } from "../fixtures";
import { Shell } from "../pages/shell";
import { OIDC_ISSUER, OIDC_NAME, SSO_PEOPLE } from "../support/oidc";
import { authFile } from "../support/run";
import { saveScreenshots } from "../support/screenshots";

// One provider and one role mapping for the whole file: its tests run in order.
test.describe.configure({ mode: "serial" });

type ApiUser = { id: string; email: string; name: string | null; role: string; disabled: boolean; sso: boolean };

/** Nothing in these pages may leave loopback (the provider's stock pages would fetch web fonts). */
async function loopbackOnly(context: BrowserContext) {
  await context.route(
    (url) => url.hostname !== "127.0.0.1",
    (route) => route.abort(),
  );
}

const ssoButton = (page: Page) => page.getByRole("button", { name: `Continue with ${OIDC_NAME}` });

/** Through the SSO button, the provider's login form (any password) and its consent, back to the console. */
async function signInWithSso(page: Page, login: string) {
  await page.goto("/login");
  await ssoButton(page).click();
  await expect(page).toHaveURL(new RegExp(`^${OIDC_ISSUER}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password works here");
  await page.getByRole("button", { name: "Sign-in" }).click();
  // Consent is asked the first time a person meets the client; then the browser is back with us.
  const consent = page.getByRole("button", { name: "Continue" });
  await expect
    .poll(async () => page.url().startsWith(`${BASE_URL}/`) || (await consent.isVisible()), { timeout: 15_000 })
    .toBe(true);
  if (!page.url().startsWith(`${BASE_URL}/`)) await consent.click();
  await page.waitForURL((url) => url.origin === BASE_URL);
}

async function users(admin: APIRequestContext): Promise<ApiUser[]> {
  const res = await admin.get("/api/v1/users");
  expect(res.status()).toBe(200);
  return ((await res.json()) as { items: ApiUser[] }).items;
}

async function userByEmail(admin: APIRequestContext, email: string): Promise<ApiUser> {
  const user = (await users(admin)).find((u) => u.email === email);
  expect(user, `no user ${email}`).toBeTruthy();
  return user!;
}

async function setMapping(admin: APIRequestContext, mapping: unknown) {
  const res = await admin.patch("/api/v1/settings", { data: { ssoRoleMapping: mapping }, headers: SAME_ORIGIN });
  expect(res.status(), await res.text()).toBe(200);
}

test.beforeEach(async ({ context }) => loopbackOnly(context));

test.afterAll(async ({ playwright }) => {
  // Other specs expect no mapping: leave the settings as they were.
  const admin = await playwright.request.newContext({ baseURL: BASE_URL, storageState: authFile("admin") });
  await setMapping(admin, null);
  await admin.dispose();
});

test("a new SSO user signs in through the provider's form as a viewer, with the email and name userinfo gave", async ({
  page,
  shell,
  apiAs,
}, testInfo) => {
  await page.goto("/login");
  await expect(ssoButton(page)).toBeVisible();
  await saveScreenshots(page, testInfo, "sso-login");
  await page.setViewportSize({ width: 1280, height: 800 });

  const ada = SSO_PEOPLE["ada.viewer"];
  await signInWithSso(page, "ada.viewer");
  await expect(page).toHaveURL(`${BASE_URL}/`);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await shell.expectSignedInAs(ada.email, "viewer");

  const admin = await apiAs("admin");
  const user = await userByEmail(admin, ada.email);
  expect(user).toMatchObject({ name: ada.name, role: "viewer", sso: true, disabled: false });
  expect((await users(admin)).some((u) => u.email.endsWith("@oidc.invalid"))).toBe(false);

  // The ID token kept for sign-out stays inside the encrypted cookie: the session API does not show it.
  const session = await page.request.get("/api/auth/session");
  expect(JSON.stringify(await session.json())).not.toMatch(/idToken|eyJ/);
});

test("the sign-in page with single sign-on fits a phone", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/login");
  const button = ssoButton(page);
  await expect(button).toBeVisible();
  const box = await button.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await button.focus();
  await expect(button).toBeFocused();
});

test.describe("with a role mapping", () => {
  test.use(asRole("admin"));

  test("the groups claim gives operator and admin at each sign-in, and those roles are read-only in the console", async ({
    page,
    browser,
    apiAs,
  }, testInfo) => {
    // Four SSO round trips through the provider and an axe scan: over 90 s once with both cores busy.
    test.setTimeout(180_000);
    const admin = await apiAs("admin");

    // The admin sets the mapping in Settings.
    await page.goto("/settings");
    const section = page.getByRole("form", { name: "SSO role mapping" });
    await section.getByLabel("Set SSO users’ roles from a claim").check();
    await expect(section.getByLabel("Role claim")).toHaveValue("groups");
    await section.getByLabel("Rules").fill("platform-ops = operator\nplatform-admins = admin");
    await section.getByLabel("Role when no rule matches").selectOption("viewer");
    const [saved] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/api/v1/settings") && r.request().method() === "PATCH"),
      section.getByRole("button", { name: "Save role mapping" }).click(),
    ]);
    expect(saved.status(), await saved.text()).toBe(200);
    await expect(section.getByRole("status")).toHaveText("Saved.");

    const signInAs = async (login: string) => {
      const context = await browser.newContext({ storageState: undefined });
      await loopbackOnly(context);
      const person = await context.newPage();
      await signInWithSso(person, login);
      await expect(person).toHaveURL(`${BASE_URL}/`);
      return { context, shell: new Shell(person) };
    };
    const grace = SSO_PEOPLE["grace.ops"];
    const linus = SSO_PEOPLE["linus.admin"];
    {
      const { context, shell } = await signInAs("grace.ops");
      await shell.expectSignedInAs(grace.email, "operator");
      await context.close();
    }
    {
      const { context, shell } = await signInAs("linus.admin");
      await shell.expectSignedInAs(linus.email, "admin");
      await context.close();
    }

    // While the mapping is on, an SSO user's role is the provider's: shown so, refused if tried.
    await page.reload();
    const graceRow = page.locator(`tr[data-user="${grace.email}"]`);
    await expect(graceRow.getByText("managed by SSO")).toBeVisible();
    await expect(graceRow.getByRole("combobox")).toHaveCount(0);
    // Password users keep their role select.
    await expect(page.locator('tr[data-user="viewer@fleet.test"]').getByRole("combobox")).toBeVisible();
    // The page's scan (accessibility.spec.ts) sees the mapping off; here it is on, its fields shown.
    await expect(section.getByLabel("Rules")).toHaveValue("platform-ops = operator\nplatform-admins = admin");
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    await section.scrollIntoViewIfNeeded();
    await saveScreenshots(page, testInfo, "sso-settings");
    const graceUser = await userByEmail(admin, grace.email);
    const refused = await admin.patch(`/api/v1/users/${graceUser.id}`, { data: { role: "viewer" }, headers: SAME_ORIGIN });
    const body = await expectApiError(refused, 409, "role_managed_by_sso");
    expect(body.message).toContain("groups");

    // Re-evaluated at the next sign-in: a changed mapping changes the role (and the audit log says so).
    await setMapping(admin, { claim: "groups", rules: [{ value: "platform-admins", role: "admin" }], defaultRole: "viewer" });
    {
      const { context, shell } = await signInAs("grace.ops");
      await shell.expectSignedInAs(grace.email, "viewer");
      await context.close();
    }
    const audit = await admin.get(`/api/v1/audit?action=user.update&limit=20`);
    expect(audit.status()).toBe(200);
    expect(JSON.stringify(await audit.json())).toContain('"to":"viewer"');

    // Without a mapping, console edits stand across sign-ins.
    await setMapping(admin, null);
    const edited = await admin.patch(`/api/v1/users/${graceUser.id}`, { data: { role: "operator" }, headers: SAME_ORIGIN });
    expect(edited.status(), await edited.text()).toBe(200);
    {
      const { context, shell } = await signInAs("grace.ops");
      await shell.expectSignedInAs(grace.email, "operator");
      await context.close();
    }
    await page.reload();
    await expect(graceRow.getByRole("combobox")).toHaveValue("operator");
  });
});

test.describe("who gets in", () => {
  test.use(asRole("admin"));

  test("an admin trusts the provider's emails in Settings; a default role of none refuses in words", async ({
    page,
    browser,
    apiAs,
  }) => {
    const admin = await apiAs("admin");
    // From a known state, so a retry after a half-done first try starts the same way.
    const reset = await admin.patch("/api/v1/settings", { data: { ssoTrustedEmailIssuer: null }, headers: SAME_ORIGIN });
    expect(reset.status(), await reset.text()).toBe(200);
    await page.goto("/settings");
    const trust = page.getByLabel("Trust the provider’s emails");
    await expect(trust).not.toBeChecked();
    const patched = page.waitForResponse((r) => r.url().endsWith("/api/v1/settings") && r.request().method() === "PATCH");
    await trust.check();
    expect((await patched).status()).toBe(200);
    await expect(trust).toBeChecked();
    const audit = await admin.get("/api/v1/audit?action=settings.update&limit=5");
    expect(JSON.stringify(await audit.json())).toContain(`"to":"${OIDC_ISSUER}"`);
    const cleared = page.waitForResponse((r) => r.url().endsWith("/api/v1/settings") && r.request().method() === "PATCH");
    await trust.uncheck();
    expect((await cleared).status()).toBe(200);

    await setMapping(admin, { claim: "groups", rules: [{ value: "platform-admins", role: "admin" }], defaultRole: "none" });
    try {
      const context = await browser.newContext({ storageState: undefined });
      await loopbackOnly(context);
      const person = await context.newPage();
      // A login of its own: in no group, and new on every run.
      await signInWithSso(person, `nogroup-${Date.now().toString(36)}`);
      await expect(person).toHaveURL(/\/login\?error=SsoNoRole/);
      await expect(person.getByRole("alert").filter({ hasText: "groups" })).toHaveText(
        "Your single sign-on groups give you no access to Fleet Registry. Ask an admin to add you to a mapped group.",
      );
      expect((await context.cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
      await context.close();
    } finally {
      await setMapping(admin, null);
    }
  });
});

test("a user an admin disabled is refused at SSO sign-in with a clear message", async ({ page, browser, apiAs }) => {
  // A login of its own (the provider makes `<login>@idp.test`), so a rerun on the same database starts afresh.
  const login = `disabled-${Date.now().toString(36)}`;
  {
    const context = await browser.newContext();
    await loopbackOnly(context);
    const first = await context.newPage();
    await signInWithSso(first, login);
    await expect(first).toHaveURL(`${BASE_URL}/`);
    await context.close();
  }
  const admin = await apiAs("admin");
  const user = await userByEmail(admin, `${login}@idp.test`);
  const disabled = await admin.patch(`/api/v1/users/${user.id}`, { data: { disabled: true }, headers: SAME_ORIGIN });
  expect(disabled.status(), await disabled.text()).toBe(200);

  await signInWithSso(page, login);
  await expect(page).toHaveURL(/\/login\?error=SsoAccountDisabled/);
  await expect(page.getByRole("alert").filter({ hasText: "disabled" })).toHaveText(
    "This account is disabled. Ask an admin of Fleet Registry to enable it.",
  );
  expect((await page.context().cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
});

test("signing out ends the provider's session too and comes back to the sign-in page", async ({ page, shell }) => {
  const ken = SSO_PEOPLE["ken.signout"];
  await signInWithSso(page, "ken.signout");
  await shell.expectSignedInAs(ken.email, "viewer");

  await shell.signOut();
  // The provider's end-session page (RP-initiated logout with our id_token_hint) asks to confirm.
  await expect(page).toHaveURL(new RegExp(`^${OIDC_ISSUER}/session/end`));
  await page.getByRole("button", { name: "Yes, sign me out" }).click();
  await expect(page).toHaveURL(`${BASE_URL}/login`);
  expect((await page.context().cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);

  // The provider forgot the person: signing in again asks for the login form, not a silent return.
  await page.waitForLoadState("load"); // the button works once the page's script runs
  await ssoButton(page).click();
  await expect(page).toHaveURL(new RegExp(`^${OIDC_ISSUER}/interaction/`));
  await expect(page.locator('input[name="login"]')).toBeVisible();
});
