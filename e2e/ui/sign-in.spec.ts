// Signing in and out through the real form (the only tests that do; others start signed in).
import { ACCOUNTS, expect, SESSION_COOKIE, test } from "../fixtures";

test("the admin signs in through the form and sees the console shell", async ({ page, loginPage, shell }) => {
  await loginPage.goto();
  await loginPage.signIn(ACCOUNTS.admin.email, ACCOUNTS.admin.password);
  await expect(page).toHaveURL("/");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await shell.expectNav([
    "Overview",
    "Clusters",
    "Groups",
    "Tokens",
    "Policies",
    "Rollouts",
    "Versions",
    "Node pools",
    "Audit log",
    "Settings",
  ]);
  await shell.expectSignedInAs(ACCOUNTS.admin.email, "admin");
  await expect(shell.themeToggle).toBeVisible();
});

test("a wrong password shows a clear error and signs nobody in", async ({ page, loginPage, context }) => {
  await loginPage.goto();
  await loginPage.signIn(ACCOUNTS.admin.email, "not-the-password");
  await expect(loginPage.error).toHaveText("Wrong email or password.");
  await loginPage.expectOnPage();
  await expect(loginPage.submit).toBeEnabled();
  expect((await context.cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
  // Still signed out: the console sends us back.
  await page.goto("/settings");
  await loginPage.expectOnPage();
});

test("an unknown email gets the same message as a wrong password", async ({ loginPage }) => {
  await loginPage.goto();
  await loginPage.signIn("nobody@fleet.test", "whatever-password");
  await expect(loginPage.error).toHaveText("Wrong email or password.");
});

test("signing out returns to the sign-in page and ends the session", async ({ page, loginPage, shell, context }) => {
  await loginPage.goto();
  await loginPage.signIn(ACCOUNTS.operator.email, ACCOUNTS.operator.password);
  await shell.expectSignedInAs(ACCOUNTS.operator.email, "operator");
  await shell.signOut();
  await loginPage.expectOnPage();
  expect((await context.cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
  await page.goto("/audit");
  await loginPage.expectOnPage();
});

test("a signed-out visitor is sent to the sign-in page", async ({ page, loginPage }) => {
  for (const path of ["/", "/settings", "/audit"]) {
    await page.goto(path);
    await loginPage.expectOnPage();
  }
});
