// The Fleet CA card in Settings: the CA agents pin (fingerprint, expiry, state) as the API and the
// metrics report it, and the rollover is one confirmed click away. Read-only here: a rollover
// would change the CA under every other spec's agents (tests/system/ca-rollover.test.ts runs one).
import { asRole, expect, SAME_ORIGIN, test } from "../fixtures";
import { okJson } from "../support/agent-process";

test.use(asRole("admin"));

test("the Fleet CA card shows the pinned CA's fingerprint, expiry and state", async ({ page, settingsPage, apiAs }) => {
  // The settings page loads four sections at once; on two shared cores that can take a while.
  test.setTimeout(90_000);
  const admin = await apiAs("admin");
  const fleet = await okJson<{ caFingerprint: string; caNotAfter: string }>(await admin.get("/api/v1/fleet"));
  const status = await okJson<{ cas: { fingerprint: string; state: string; key: string }[]; rollover: unknown }>(
    await admin.get("/api/v1/ca"),
  );
  // FLEET_CA_ALGORITHM's default.
  expect(status.cas).toEqual([expect.objectContaining({ fingerprint: fleet.caFingerprint, state: "active", key: "RSA 3072" })]);

  await settingsPage.goto();
  const card = page
    .locator("section, div")
    .filter({ has: page.locator("#fleet-ca") })
    .last();
  await expect(page.locator("#fleet-ca")).toHaveText("Fleet CA");
  await expect(page.getByLabel("Fingerprint of the active CA")).toHaveText(fleet.caFingerprint, { timeout: 45_000 });
  await expect(card.getByText("active", { exact: true })).toBeVisible();
  await expect(card).toContainText(`RSA 3072 · expires ${fleet.caNotAfter.slice(0, 10)}`);

  // Starting asks first; cancelling changes nothing.
  await card.getByRole("button", { name: "Start CA rollover" }).click();
  const dialog = page.getByRole("dialog", { name: "Start a fleet CA rollover?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  const after = await okJson<{ rollover: unknown }>(await admin.get("/api/v1/ca"));
  expect(after.rollover).toBeNull();
});

test("viewers cannot start a rollover through the API", async ({ apiAs }) => {
  const viewer = await apiAs("viewer");
  const res = await viewer.post("/api/v1/ca/rollover", { headers: SAME_ORIGIN });
  expect(res.status()).toBe(403);
  expect((await res.json()).error).toBe("forbidden");
  const read = await viewer.get("/api/v1/ca");
  expect(read.status()).toBe(200);
});
