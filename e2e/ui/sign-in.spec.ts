// Signing in and out through the real form (the only tests that do; others start signed in).
import { ACCOUNTS, BASE_URL, SAME_ORIGIN, expect, SESSION_COOKIE, test } from "../fixtures";
import { NAV } from "../support/navigation";

test("the admin signs in through the form and sees the console shell", async ({ page, loginPage, shell }) => {
  await loginPage.goto();
  await loginPage.signIn(ACCOUNTS.admin.email, ACCOUNTS.admin.password);
  await expect(page).toHaveURL("/");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await shell.expectNav(NAV.admin);
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

test("signing out returns to the sign-in page and ends the session, even for a copy of its cookie", async ({
  page,
  loginPage,
  shell,
  context,
  apiAs,
}) => {
  await loginPage.goto();
  await loginPage.signIn(ACCOUNTS.operator.email, ACCOUNTS.operator.password);
  await shell.expectSignedInAs(ACCOUNTS.operator.email, "operator");
  const session = (await context.cookies()).find((c) => c.name === SESSION_COOKIE);
  expect(session).toBeTruthy();
  await shell.signOut();
  await loginPage.expectOnPage();
  expect((await context.cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
  await page.goto("/audit");
  await loginPage.expectOnPage();

  // Whoever kept a copy of the cookie (the way a thief would) is signed out too.
  const replay = await apiAs("anonymous");
  const cookie = `${SESSION_COOKIE}=${session!.value}`;
  const mint = await replay.post("/api/v1/registration-tokens", {
    data: { name: "replayed" },
    headers: { ...SAME_ORIGIN, Cookie: cookie },
  });
  expect(mint.status(), await mint.text()).toBe(401);
  expect((await replay.get("/api/v1/clusters", { headers: { Cookie: cookie } })).status()).toBe(401);
  await context.addCookies([{ ...session!, expires: -1 }]);
  await page.goto("/audit");
  await loginPage.expectOnPage();
});

test("after repeated wrong passwords the form says how long to wait, then lets the right password in", async ({
  page,
  loginPage,
  apiAs,
}) => {
  test.slow(); // six password checks (scrypt) and a wait, on a shared machine
  // An account of its own: the lock must not touch the accounts other tests sign in with.
  const account = { email: `e2e-lock-${Date.now().toString(36)}@fleet.test`, password: "e2e-lock-password-1" };
  const admin = await apiAs("admin");
  const created = await admin.post("/api/v1/users", { data: { ...account, role: "viewer" }, headers: SAME_ORIGIN });
  expect(created.status(), await created.text()).toBe(201);

  await loginPage.goto();
  for (let i = 0; i < 5; i++) {
    await loginPage.signIn(account.email, `wrong-password-${i}`);
    await expect(loginPage.error).toHaveText("Wrong email or password.");
    await expect(loginPage.submit).toBeEnabled();
  }
  // Locked now: refused before any password check (the right password too: the API tests show it).
  await loginPage.signIn(account.email, "wrong-password-5");
  await expect(loginPage.error).toHaveText(/^Too many attempts; try again in \d+ seconds?\.$/);
  const seconds = Number(/in (\d+) second/.exec((await loginPage.error.textContent()) ?? "")?.[1]);
  expect(seconds).toBeGreaterThanOrEqual(1);
  await loginPage.expectOnPage();

  await page.waitForTimeout(seconds * 1000 + 500);
  await loginPage.signIn(account.email, account.password);
  await expect(page).toHaveURL(`${BASE_URL}/`);
});

test("a signed-out visitor is sent to the sign-in page", async ({ page, loginPage }) => {
  for (const path of ["/", "/settings", "/audit"]) {
    await page.goto(path);
    await loginPage.expectOnPage();
  }
});
