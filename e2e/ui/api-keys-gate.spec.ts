// API keys in Settings: an admin mints one, sees it exactly once, a pipeline uses it as a Bearer
// token on the change gate, and revoking it locks the pipeline out. A viewer gets neither the
// section nor the endpoints (checked on the API too, not only by the missing buttons). Users: an
// admin adds one with a typed password or a one-time set-password link.
import { BASE_URL, SAME_ORIGIN, asRole, expect, expectApiError, test } from "../fixtures";
import { LoginPage } from "../pages/login-page";

test.describe("API keys as an admin", () => {
  test.use(asRole("admin"));

  test("mint a key shown once, use it on the gate, revoke it", async ({ page, playwright }) => {
    const name = `e2e-gate-${Date.now().toString(36)}`;
    await page.goto("/settings");
    const section = page.locator("section").filter({ has: page.getByRole("heading", { name: "API keys" }) });
    await section.getByRole("button", { name: "New API key" }).click();

    const dialog = page.getByRole("dialog", { name: "New API key" });
    await dialog.getByLabel("Name").fill(name);
    await dialog.getByLabel("Role").selectOption("viewer");
    await dialog.getByLabel("Expires after").selectOption({ label: "30 days" });
    await dialog.getByRole("button", { name: "Create key" }).click();

    const shown = page.getByRole("dialog", { name: "API key created" });
    await expect(shown.getByText("it is shown only this once")).toBeVisible();
    const key = (await shown.getByTestId("api-key-secret").innerText()).trim();
    expect(key).toMatch(/^frk_[A-Za-z0-9]+_[A-Za-z0-9_-]+$/);
    await expect(shown.getByRole("button", { name: "Copy key" })).toBeVisible();
    await shown.getByRole("button", { name: "I have copied it" }).click();
    await expect(shown).toBeHidden();

    // Listed without the secret; never shown again, not even after a reload.
    const row = page.locator(`tr[data-api-key="${name}"]`);
    await expect(row).toContainText("viewer");
    await expect(row).toContainText("active");
    await expect(row).toContainText("never"); // not used yet
    await expect(page.getByText(key)).toHaveCount(0);
    await page.reload();
    await expect(row).toBeVisible();
    expect(await page.content()).not.toContain(key);

    // A pipeline: no cookies, only the key.
    const pipeline = await playwright.request.newContext({ baseURL: BASE_URL });
    try {
      const gate = await pipeline.get(`/api/v1/gate?${new URLSearchParams({ selector: "env=prod" })}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(gate.status(), await gate.text()).toBe(200);
      const body = (await gate.json()) as { pass: boolean; summary: string; clusters: unknown[] };
      expect(typeof body.pass).toBe("boolean");
      expect(typeof body.summary).toBe("string");
      expect(Array.isArray(body.clusters)).toBe(true);
      // A viewer key reads but cannot change anything.
      await expectApiError(
        await pipeline.patch("/api/v1/settings", {
          data: { heartbeatIntervalSeconds: 5 },
          headers: { Authorization: `Bearer ${key}` },
        }),
        403,
        "forbidden",
      );

      // The console shows when it was last used.
      await page.reload();
      await expect(row.getByText("never")).toHaveCount(0);

      // Revoke (with confirmation): the pipeline is locked out from the next request.
      await row.getByRole("button", { name: `Revoke ${name}` }).click();
      const confirm = page.getByRole("dialog", { name: `Revoke “${name}”?` });
      await confirm.getByRole("button", { name: "Revoke key" }).click();
      await expect(confirm).toBeHidden();
      await expect(row).toContainText("revoked");
      await expectApiError(
        await pipeline.get("/api/v1/gate?selector=env%3Dprod", { headers: { Authorization: `Bearer ${key}` } }),
        401,
        "unauthenticated",
      );
    } finally {
      await pipeline.dispose();
    }
  });

  test("an admin adds a user, changes the role and disables them", async ({ page, apiAs }) => {
    const email = `e2e-user-${Date.now().toString(36)}@fleet.test`;
    await page.goto("/settings");
    await page.getByRole("button", { name: "Add user" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a user" });
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("A password I type now").check();
    await dialog.getByLabel("Password", { exact: true }).fill("e2e-user-password-1");
    await dialog.getByLabel("Role").selectOption("operator");
    await dialog.getByRole("button", { name: "Add user" }).click();
    await expect(dialog).toBeHidden();
    const row = page.locator(`tr[data-user="${email}"]`);
    await expect(row.getByLabel(`Role of ${email}`)).toHaveValue("operator");

    // Change the role and disable: both reach the server.
    await row.getByLabel(`Role of ${email}`).selectOption("viewer");
    await expect(row.getByLabel(`Role of ${email}`)).toBeEnabled();
    await row.getByRole("button", { name: `Disable ${email}` }).click();
    await page
      .getByRole("dialog", { name: `Disable ${email}?` })
      .getByRole("button", { name: "Disable user" })
      .click();
    await expect(row).toContainText("disabled");

    const admin = await apiAs("admin");
    const users = (await (await admin.get("/api/v1/users")).json()) as {
      items: { email: string; role: string; disabled: boolean }[];
    };
    expect(users.items.find((u) => u.email === email)).toMatchObject({ role: "viewer", disabled: true });
  });

  test("an admin adds a user with a set-password link; they choose it once and sign in", async ({ page, browser }) => {
    const email = `e2e-link-${Date.now().toString(36)}@fleet.test`;
    await page.goto("/settings");
    await page.getByRole("button", { name: "Add user" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a user" });
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByRole("button", { name: "Add user" }).click();
    const reveal = page.getByRole("dialog", { name: `${email} was added` });
    const link = (await reveal.getByTestId("password-link").textContent()) ?? "";
    expect(new URL(link).pathname).toBe("/set-password");
    await reveal.getByRole("button", { name: "Done" }).click();
    await expect(page.locator(`tr[data-user="${email}"]`)).toContainText("awaiting password");

    // The person, in a browser with no session: the page names them, the password is set once.
    // (A context from the test's browser starts with the test's `use` options, the admin's session
    // included: theirs starts with none.)
    const theirs = await browser.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
    try {
      const them = await theirs.newPage();
      await them.goto(link);
      await expect(them.getByLabel("Email")).toHaveValue(email);
      await expect(them).toHaveURL(/\/set-password$/); // the secret left the address bar
      await them.getByLabel("New password").fill("their-own-passphrase");
      await them.getByLabel("Repeat the password").fill("their-own-passphrase");
      await them.getByRole("button", { name: "Set password" }).click();
      await expect(them.getByRole("status")).toContainText("Your password is set");
      await them.goto("about:blank"); // a fresh load, not a same-document jump to the fragment
      await them.goto(link);
      // (Next's route announcer is an alert too: the page's own message is found by its words.)
      await expect(them.getByRole("alert").filter({ hasText: "no longer works" })).toBeVisible();

      const login = new LoginPage(them);
      await login.goto();
      await login.signIn(email, "their-own-passphrase");
      await expect(them).toHaveURL(/\/$/);
    } finally {
      await theirs.close();
    }
  });
});

test.describe("API keys as a viewer", () => {
  test.use(asRole("viewer"));

  test("the API keys section is not there and the endpoints refuse", async ({ page, apiAs }) => {
    const response = await page.goto("/settings");
    expect(response?.status()).toBe(403);
    await expect(page.getByText("403 · Forbidden")).toBeVisible();
    await expect(page.getByRole("button", { name: "New API key" })).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "API keys" })).toHaveCount(0);

    const viewer = await apiAs("viewer");
    await expectApiError(await viewer.get("/api/v1/api-keys"), 403, "forbidden");
    await expectApiError(
      await viewer.post("/api/v1/api-keys", { data: { name: "sneaky", role: "admin" }, headers: SAME_ORIGIN }),
      403,
      "forbidden",
    );
    await expectApiError(await viewer.get("/api/v1/users"), 403, "forbidden");
  });
});
