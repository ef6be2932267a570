// Pages a role may not open answer 403 themselves (not just a missing link).
import { asRole, ACCOUNTS, expect, test } from "../fixtures";
import { NAV } from "../support/navigation";

test.describe("as a viewer", () => {
  test.use(asRole("viewer"));

  test("the shell shows the role and only the pages a viewer may open", async ({ page, shell }) => {
    await page.goto("/");
    await shell.expectSignedInAs(ACCOUNTS.viewer.email, "viewer");
    await shell.expectNav(NAV.viewer);
  });

  test("opening /settings directly shows the 403 page, not the form", async ({ page, settingsPage }) => {
    await settingsPage.goto();
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(settingsPage.save).toHaveCount(0);
  });

  test("opening /audit directly shows the 403 page, not the log", async ({ page, auditPage }) => {
    await auditPage.goto();
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(auditPage.filters).toHaveCount(0);
  });

  for (const path of ["/settings", "/audit"]) {
    test(`opening ${path} directly answers HTTP 403`, async ({ page }) => {
      const response = await page.goto(path);
      expect(response?.status()).toBe(403);
    });
  }

  test("the browser's own API calls for settings are refused too", async ({ page }) => {
    await page.goto("/");
    const status = await page.evaluate(async () => (await fetch("/api/v1/settings")).status);
    expect(status).toBe(403);
  });
});

test.describe("as an operator", () => {
  test.use(asRole("operator"));

  test("sees the audit log but not the settings", async ({ page, shell, auditPage, settingsPage }) => {
    await page.goto("/");
    await shell.expectSignedInAs(ACCOUNTS.operator.email, "operator");
    await shell.expectNav(NAV.operator);
    expect((await auditPage.goto())?.status()).toBe(200);
    await expect(auditPage.filters).toBeVisible();
    await settingsPage.goto();
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(settingsPage.save).toHaveCount(0);
  });

  test("opening /settings directly answers HTTP 403", async ({ page }) => {
    expect((await page.goto("/settings"))?.status()).toBe(403);
  });
});
