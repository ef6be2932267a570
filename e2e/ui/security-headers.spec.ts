// The console's Content-Security-Policy holds and the pages satisfy it: every page, visited in
// Chromium as an admin (with a live cluster reporting through a real agent), loads, hydrates and
// logs no CSP violation; each answer carries a fresh script nonce and the other security headers;
// an injected inline handler (what an XSS would try) is refused.
import type { Page, Response } from "@playwright/test";
import { LoginPage } from "../pages/login-page";
import { AgentProcess, uniqueName } from "../support/agent-process";
import { ACCOUNTS, asRole, expect, test } from "../fixtures";

test.use(asRole("admin"));

/** Records CSP violations in the page (the event) and in its console (Chromium's message). */
function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (m.text().includes("Content Security Policy")) violations.push(`console: ${m.text()}`);
  });
  void page.exposeFunction("__reportCspViolation", (v: string) => violations.push(`event: ${v}`));
  void page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      const report = (window as unknown as { __reportCspViolation?: (v: string) => void }).__reportCspViolation;
      report?.(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  return violations;
}

function expectSecurityHeaders(response: Response | null, what: string): string {
  expect(response, what).not.toBeNull();
  const h = response!.headers();
  const csp = h["content-security-policy"] ?? "";
  const nonce = /'nonce-([A-Za-z0-9+/=]{16,})'/.exec(csp)?.[1];
  expect(nonce, `${what}: a script nonce in ${csp}`).toBeTruthy();
  const directives = new Map(
    csp.split(";").map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values.join(" ")] as const;
    }),
  );
  expect(directives.get("script-src"), what).toBe(`'self' 'nonce-${nonce}' 'strict-dynamic'`);
  expect(directives.get("style-src"), what).toBe("'self' 'unsafe-inline'");
  expect(directives.get("img-src"), what).toBe("'self' data:");
  expect(directives.get("connect-src"), what).toBe("'self'");
  expect(directives.get("object-src"), what).toBe("'none'");
  expect(directives.get("base-uri"), what).toBe("'self'");
  expect(directives.get("form-action"), what).toBe("'self'");
  expect(directives.get("frame-ancestors"), what).toBe("'none'");
  expect(directives.get("default-src"), what).toBe("'self'");
  expect(h["x-content-type-options"], what).toBe("nosniff");
  expect(h["x-frame-options"], what).toBe("DENY");
  expect(h["referrer-policy"], what).toMatch(/^(same-origin|strict-origin-when-cross-origin|no-referrer)$/);
  return nonce!;
}

/** Loads a page and waits until it is on screen and hydrated (Next's client ran under the CSP). */
async function visit(page: Page, path: string): Promise<string> {
  const response = await page.goto(path);
  expect(response?.status(), `${path} -> ${response?.status()}`).toBe(200);
  const nonce = expectSecurityHeaders(response, path);
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await page.waitForFunction(() => !!(window as unknown as { next?: { version?: string } }).next?.version, undefined, {
    timeout: 30_000,
  });
  // Let the client fetch its data and draw (charts, tables) before the next page.
  await page.waitForTimeout(750);
  return nonce;
}

test("every console page satisfies its Content-Security-Policy and carries the security headers", async ({
  page,
  apiAs,
}, testInfo) => {
  // Thirteen server renders plus a real agent: generous for a busy two-core machine.
  test.setTimeout(300_000);
  const admin = await apiAs("admin");
  const agent = await AgentProcess.start(admin, testInfo, uniqueName("e2e-csp"), { labels: "env=dev,region=eu-west-1" });
  try {
    const clusterId = await agent.clusterId(admin, { reportingPods: true });
    const violations = watchCsp(page);
    const pages = [
      "/",
      "/clusters",
      `/clusters/${clusterId}`,
      `/clusters/${clusterId}/deregister`,
      "/groups",
      "/tokens",
      "/policies",
      "/rollouts",
      "/rollouts/new",
      "/versions",
      "/node-pools",
      "/audit",
      "/settings",
    ];
    const nonces = new Set<string>();
    for (const path of pages) {
      nonces.add(await visit(page, path));
      expect(violations, `CSP violations on ${path}`).toEqual([]);
    }
    expect(nonces.size, "a fresh nonce for every page").toBe(pages.length);

    // Client-side navigation through the shell stays within the policy too.
    await page.getByRole("link", { name: "Clusters", exact: true }).click();
    await expect(page).toHaveURL(/\/clusters$/);
    // Other specs' clusters may push this one off the first page: search for it (in the URL, no reload).
    await page.getByRole("searchbox", { name: "Search" }).fill(agent.name);
    await page.getByRole("link", { name: agent.name }).first().click();
    await expect(page.getByRole("heading", { name: agent.name })).toBeVisible();
    await page.waitForTimeout(750);
    expect(violations, "CSP violations after client-side navigation").toEqual([]);

    // The API answers are not to be sniffed into something else either.
    const api = await page.request.get("/api/v1/clusters");
    expect(api.headers()["x-content-type-options"]).toBe("nosniff");
  } finally {
    await agent.stop();
  }
});

test("the login page satisfies the policy, and signing in through the form works under it", async ({ browser }) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  try {
    const page = await context.newPage();
    const violations = watchCsp(page);
    const login = new LoginPage(page);
    const response = await page.goto("/login");
    expectSecurityHeaders(response, "/login");
    await expect(login.submit).toBeVisible();
    await login.signIn(ACCOUNTS.admin.email, ACCOUNTS.admin.password);
    await expect(page).toHaveURL("/");
    await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
    await page.waitForTimeout(750);
    expect(violations).toEqual([]);
  } finally {
    await context.close();
  }
});

test("an injected inline event handler does not run and is reported as a violation", async ({ page }) => {
  const violations = watchCsp(page);
  await visit(page, "/clusters");
  await page.evaluate(() => {
    const div = document.createElement("div");
    // What a stored XSS would try: markup with an inline handler.
    div.innerHTML = `<img src="/missing.png" onerror="window.__injected = true">`;
    document.body.appendChild(div);
  });
  await expect.poll(() => violations.length, { message: "the blocked handler is reported" }).toBeGreaterThan(0);
  expect(await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected ?? false)).toBe(false);
});
