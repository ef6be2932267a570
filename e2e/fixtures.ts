// The tests' entry point: `import { test, expect } from "../fixtures"`. Signed-in state comes from
// the global setup (test.use(asRole("viewer")) for pages, apiAs("viewer") for API calls), so only
// the tests about signing in go through the login form.
import { readFileSync } from "node:fs";
import { test as base, expect, type APIRequestContext, type APIResponse } from "@playwright/test";
import { AuditPage } from "./pages/audit-page";
import { LoginPage } from "./pages/login-page";
import { SettingsPage } from "./pages/settings-page";
import { Shell } from "./pages/shell";
import { SESSION_COOKIE } from "./support/auth";
import { BASE_URL, authFile, type Role } from "./support/run";

export { expect };
export { ACCOUNTS, BASE_URL, type Role } from "./support/run";
export { SAME_ORIGIN, SESSION_COOKIE, signIn } from "./support/auth";

type Fixtures = {
  /** A fresh API client, signed in as `who` (cookie session) or not at all. Disposed after the test. */
  apiAs: (who: Role | "anonymous") => Promise<APIRequestContext>;
  loginPage: LoginPage;
  shell: Shell;
  settingsPage: SettingsPage;
  auditPage: AuditPage;
};

export const test = base.extend<Fixtures>({
  // Console pages arrive server-rendered with their first data, so a button can be on screen before
  // React hydrates it (a click then does nothing). Every goto waits for the app's hydration mark
  // (set by components/providers.tsx) on HTML pages; API answers and downloads are left alone.
  page: async ({ page }, provide) => {
    const goto = page.goto.bind(page);
    page.goto = async (url, options) => {
      const response = await goto(url, options);
      if (response?.headers()["content-type"]?.startsWith("text/html"))
        await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 30_000 });
      return response;
    };
    await provide(page);
  },
  apiAs: async ({ playwright }, provide) => {
    const made: APIRequestContext[] = [];
    await provide(async (who) => {
      const ctx = await playwright.request.newContext({
        baseURL: BASE_URL,
        storageState: who === "anonymous" ? undefined : authFile(who),
      });
      made.push(ctx);
      return ctx;
    });
    for (const ctx of made) await ctx.dispose();
  },
  loginPage: async ({ page }, provide) => provide(new LoginPage(page)),
  shell: async ({ page }, provide) => provide(new Shell(page)),
  settingsPage: async ({ page }, provide) => provide(new SettingsPage(page)),
  auditPage: async ({ page }, provide) => provide(new AuditPage(page)),
});

/** `test.use(asRole("viewer"))`: the browser context starts signed in as that role. */
export function asRole(role: Role) {
  return { storageState: authFile(role) };
}

/** The raw session token (a JWT) of a role, for tests that replay it the way an attacker would. */
export function sessionToken(role: Role): string {
  const state = JSON.parse(readFileSync(authFile(role), "utf8")) as { cookies: { name: string; value: string }[] };
  const cookie = state.cookies.find((c) => c.name === SESSION_COOKIE);
  if (!cookie) throw new Error(`no ${SESSION_COOKIE} in ${authFile(role)}`);
  return cookie.value;
}

/** A cookie header carrying `role`'s session, for hand-made requests (cross-site forgeries). */
export function sessionCookieHeader(role: Role): string {
  return `${SESSION_COOKIE}=${sessionToken(role)}`;
}

/** Asserts the admin API's JSON error shape: `{ error, message, details? }`. */
export async function expectApiError(
  response: APIResponse,
  status: number,
  code: string,
): Promise<{ error: string; message: string; details?: unknown }> {
  const text = await response.text();
  expect(response.status(), `${response.url()} -> ${response.status()} ${text}`).toBe(status);
  expect(response.headers()["content-type"] ?? "").toContain("application/json");
  const body = JSON.parse(text) as { error: string; message: string; details?: unknown };
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(0);
  return body;
}
