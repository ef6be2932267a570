// An API key never outlives its creator: disabling a user names the keys that will stop working,
// and the key list marks them afterwards (the API refuses them: tests/system/sessions.test.ts).
import { request } from "@playwright/test";
import { BASE_URL, SAME_ORIGIN, asRole, expect, expectApiError, signIn, test } from "../fixtures";

test.use(asRole("admin"));

test("disabling a user lists the API keys they minted, which then show as stopped", async ({ page, apiAs }) => {
  test.slow(); // two sign-ins and a settings page with several lists, on a shared machine
  const suffix = Date.now().toString(36);
  const creator = { email: `e2e-keymaker-${suffix}@fleet.test`, password: "e2e-keymaker-password-1" };
  const keyName = `e2e-bot-${suffix}`;
  const admin = await apiAs("admin");
  expect((await admin.post("/api/v1/users", { data: { ...creator, role: "admin" }, headers: SAME_ORIGIN })).status()).toBe(201);

  // The creator mints a key with their own session.
  const session = await request.newContext({ baseURL: BASE_URL });
  let key: string;
  try {
    await signIn(session, creator);
    const made = await session.post("/api/v1/api-keys", { data: { name: keyName, role: "operator" }, headers: SAME_ORIGIN });
    expect(made.status(), await made.text()).toBe(201);
    key = ((await made.json()) as { key: string }).key;
  } finally {
    await session.dispose();
  }

  await page.goto("/settings");
  const keyRow = page.locator(`tr[data-api-key="${keyName}"]`);
  // The lists load after the page; on a busy shared machine that took over 10 s.
  await expect(keyRow).toContainText(creator.email, { timeout: 30_000 });
  await expect(keyRow).toContainText("active");

  await page
    .locator(`tr[data-user="${creator.email}"]`)
    .getByRole("button", { name: `Disable ${creator.email}` })
    .click();
  const dialog = page.getByRole("dialog", { name: `Disable ${creator.email}?` });
  await expect(dialog.getByTestId("keys-stop-working")).toHaveText(`This API key they minted will stop working: ${keyName}.`);
  await dialog.getByRole("button", { name: "Disable user" }).click();
  await expect(dialog).toBeHidden();

  await expect(keyRow).toContainText("creator disabled");
  await expect(keyRow).toContainText(`Stopped working: ${creator.email} is disabled.`);
  const pipeline = await apiAs("anonymous");
  await expectApiError(
    await pipeline.get("/api/v1/clusters", { headers: { Authorization: `Bearer ${key}` } }),
    401,
    "unauthenticated",
  );
});
