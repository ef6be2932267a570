// Settings' ClusterProfile export section: not set up, a refused kubeconfig said where it was
// pasted, a stored one shown only by its server (the token never comes back), a hub that cannot
// be reached shown as the last error, axe-clean in that state; on a phone it fits and every
// control is reachable by keyboard. The hub here is a closed loopback port: nothing leaves the machine
// (refused until private hub addresses are allowed, as a webhook target would be).
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { asRole, expect, SAME_ORIGIN, test } from "../fixtures";

test.use(asRole("admin"));

const HUB = "https://127.0.0.1:1";
const TOKEN = "e2e-hub-token-never-shown";
const kubeconfig = (server: string) =>
  [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: hub",
    "  cluster:",
    `    server: ${server}`,
    "users:",
    "- name: exporter",
    "  user:",
    `    token: ${TOKEN}`,
    "contexts:",
    "- name: hub",
    "  context:",
    "    cluster: hub",
    "    user: exporter",
    "current-context: hub",
    "",
  ].join("\n");

const section = (page: Page) => page.locator("section").filter({ has: page.locator("#cluster-profile-export") });
const allowPrivate = (page: Page) =>
  section(page).getByRole("checkbox", { name: /Allow a ClusterProfile hub on a private address/ });

test.afterEach(async ({ apiAs }) => {
  // Leave the exporter as other specs expect it: off, with no hub, private hubs refused.
  const admin = await apiAs("admin");
  await admin.patch("/api/v1/settings/cluster-profile-export", { data: { kubeconfig: null }, headers: SAME_ORIGIN });
  await admin.patch("/api/v1/settings", { data: { hubAllowPrivateTargets: false }, headers: SAME_ORIGIN });
});

test("set up the export: a bad kubeconfig is refused, a stored one shows its server only, an unreachable hub shows as the last error", async ({
  page,
  settingsPage,
  apiAs,
}) => {
  test.setTimeout(120_000);
  await settingsPage.goto();
  const card = section(page);
  await expect(card.getByText("Not set up.")).toBeVisible({ timeout: 45_000 });

  const textarea = card.getByLabel("Hub kubeconfig");
  await textarea.fill(kubeconfig("http://127.0.0.1:1"));
  await card.getByRole("button", { name: "Save export settings" }).click();
  await expect(card.getByRole("alert")).toContainText("is not https");

  await card.getByLabel("Export the fleet as ClusterProfiles").check();
  await card.getByLabel("Namespace on the hub").fill("fleet");
  await textarea.fill(kubeconfig(HUB));
  await card.getByRole("button", { name: "Save export settings" }).click();
  await expect(card.getByRole("alert")).toContainText("resolves to 127.0.0.1, loopback");
  await allowPrivate(page).check();
  await expect(allowPrivate(page)).toBeEnabled();
  await card.getByRole("button", { name: "Save export settings" }).click();
  await expect(card.getByRole("status")).toHaveText("Saved.");
  await expect(textarea).toHaveValue("");
  await expect(card.getByText(HUB, { exact: true })).toBeVisible();
  await expect(card).not.toContainText(TOKEN);

  // The job runs every 5 s and the section polls every 10 s while the export is on.
  const failure = card.getByRole("alert").filter({ hasText: "The last export failed" });
  await expect(failure).toContainText("could not be reached", { timeout: 45_000 });
  const { violations } = await new AxeBuilder({ page }).include("main").analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

  const admin = await apiAs("admin");
  const state = await admin.get("/api/v1/settings/cluster-profile-export");
  expect(await state.text()).not.toContain(TOKEN);

  await card.getByRole("button", { name: "Remove kubeconfig" }).click();
  await expect(card.getByText("Not set up.")).toBeVisible();
  await expect(card.getByLabel("Export the fleet as ClusterProfiles")).not.toBeChecked();
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  test("the section fits the screen and its controls are reached in order by keyboard", async ({ page, settingsPage }) => {
    test.setTimeout(90_000);
    await settingsPage.goto();
    const card = section(page);
    await expect(card.getByText("Not set up.")).toBeVisible({ timeout: 45_000 });
    const box = await card.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    const widths = await page.evaluate(() => ({ scroll: document.scrollingElement!.scrollWidth, inner: innerWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.inner);

    await card.getByLabel("Export the fleet as ClusterProfiles").focus();
    await page.keyboard.press("Space");
    await expect(card.getByLabel("Export the fleet as ClusterProfiles")).toBeChecked();
    await page.keyboard.press("Tab");
    await expect(card.getByLabel("Namespace on the hub")).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(allowPrivate(page)).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(card.getByLabel("Hub kubeconfig")).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(card.getByRole("button", { name: "Save export settings" })).toBeFocused();
    // On with no kubeconfig is refused, under the section.
    await page.keyboard.press("Enter");
    await expect(card.getByRole("alert")).toContainText("Paste the hub kubeconfig before turning the export on");
  });
});
