// A settings change made in the console is stored and shows up in the audit log.
import { asRole, ACCOUNTS, expect, SAME_ORIGIN, test } from "../fixtures";
import { okJson } from "../support/agent-process";

test.use(asRole("admin"));

test("a settings change made in the UI appears in the audit page", async ({ page, settingsPage, auditPage, apiAs }) => {
  // A value no other test uses, so the audit entry found below is this test's. Under ten minutes:
  // the threshold is the fleet's while this runs, and other specs' clusters silent for ten minutes
  // must stay NotReady (the sweeper would turn them Ready under a longer one).
  const threshold = String(100 + Math.floor(Math.random() * 490));
  const admin = await apiAs("admin");
  const { notReadyThresholdSeconds: before } = await okJson<{ notReadyThresholdSeconds: number }>(
    await admin.get("/api/v1/settings"),
  );

  await settingsPage.goto();
  await settingsPage.expectLoaded();
  await settingsPage.notReadyThreshold.fill(threshold);
  const saved = await settingsPage.submitAndWaitForServer();
  expect(saved.notReadyThresholdSeconds).toBe(Number(threshold));

  await page.reload();
  await settingsPage.expectLoaded();
  await expect(settingsPage.notReadyThreshold).toHaveValue(threshold);

  await auditPage.goto();
  await auditPage.filterBy("Action", "settings.update");
  await auditPage.expectOnlyAction("settings.update");
  const row = auditPage.rows.filter({ hasText: `"to":${threshold}` });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(ACCOUNTS.admin.email);
  await expect(row).toContainText("notReadyThresholdSeconds");
  await expect(row).toContainText("settings fleet");
  await okJson(await admin.patch("/api/v1/settings", { data: { notReadyThresholdSeconds: before }, headers: SAME_ORIGIN }));
});

test('saving a change confirms it with "Saved."', async ({ settingsPage }) => {
  await settingsPage.goto();
  await settingsPage.expectLoaded();
  const current = Number(await settingsPage.certificateValidity.inputValue());
  await settingsPage.certificateValidity.fill(String(current === 30 ? 31 : 30));
  await settingsPage.submitAndWaitForServer();
  await expect(settingsPage.saved).toBeVisible({ timeout: 3_000 });
});

test("an invalid value is caught in the form and nothing is saved", async ({ page, settingsPage }) => {
  await settingsPage.goto();
  await settingsPage.expectLoaded();
  const before = await settingsPage.notReadyThreshold.inputValue();
  await settingsPage.heartbeatInterval.fill("5000");
  await settingsPage.save.click();
  await expect(settingsPage.heartbeatInterval).toHaveAttribute("aria-invalid", "true");
  await expect(settingsPage.saved).toHaveCount(0);
  await page.reload();
  await settingsPage.expectLoaded();
  await expect(settingsPage.notReadyThreshold).toHaveValue(before);
  await expect(settingsPage.heartbeatInterval).not.toHaveValue("5000");
});

test("retention is a setting: a change is saved, and an audit retention under 30 days is refused", async ({
  page,
  settingsPage,
}) => {
  await settingsPage.goto();
  await settingsPage.expectLoaded();
  await expect(settingsPage.heartbeatHistoryRetention).toHaveValue("7");
  const days = String(400 + Math.floor(Math.random() * 300));
  await settingsPage.auditLogRetention.fill(days);
  const saved = await settingsPage.submitAndWaitForServer();
  expect(saved.auditLogRetentionDays).toBe(Number(days));

  await settingsPage.auditLogRetention.fill("29");
  await settingsPage.save.click();
  await expect(settingsPage.auditLogRetention).toHaveAttribute("aria-invalid", "true");
  await page.reload();
  await settingsPage.expectLoaded();
  await expect(settingsPage.auditLogRetention).toHaveValue(days);
});

test("the theme toggle switches light and dark and remembers the choice", async ({ page, shell }) => {
  await page.goto("/");
  const html = page.locator("html");
  const wasDark = ((await html.getAttribute("class")) ?? "").includes("dark");
  await shell.themeToggle.click();
  await expect(html).toHaveClass(wasDark ? /^(?!.*\bdark\b)/ : /\bdark\b/);
  await page.reload();
  await expect(html).toHaveClass(wasDark ? /^(?!.*\bdark\b)/ : /\bdark\b/);
});
