// Acting on many clusters from the list (issue 14): select a page, widen to "all N matching",
// edit labels with a preview and a confirmation, on a desktop and a 390x844 phone. The desktop
// run saves the README's screenshots of the list with the bulk action in progress.
import type { Page } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { execSql, sqlTimestamp } from "../support/database";

const COUNT = 60;

/** COUNT Ready clusters labelled `bulke2e=<run>` (so the spec's filter sees only its own). */
async function seedClusters(run: string) {
  const now = sqlTimestamp();
  const ids = Array.from({ length: COUNT }, (_, i) => `cl_e2ebulk${run}${String(i).padStart(3, "0")}`);
  await execSql(
    `INSERT INTO "Cluster" ("id", "name", "phase", "registeredAt", "lastHeartbeatAt", "apiServerHealth", "createdAt", "updatedAt") VALUES ${ids.map(() => "(?, ?, 'Active', ?, ?, 'ok', ?, ?)").join(", ")}`,
    ids.flatMap((id, i) => [id, `bulk-${run}-${String(i).padStart(3, "0")}`, now, now, now, now]),
  );
  const labels = ids.flatMap((id, i) => [
    [id, "env", "prod"],
    [id, "region", i % 2 ? "eu" : "us"],
    [id, "bulke2e", run],
  ]);
  await execSql(
    `INSERT INTO "ClusterLabel" ("clusterId", "key", "value") VALUES ${labels.map(() => "(?, ?, ?)").join(", ")}`,
    labels.flat(),
  );
}

async function selectAllMatching(page: Page, run: string) {
  await page.goto(`/clusters?selector=${encodeURIComponent(`bulke2e=${run}`)}&pageSize=25`);
  // The first list of a freshly started server can take a while on a loaded CI machine.
  await expect(page.getByTestId("clusters-total")).toHaveText(String(COUNT), { timeout: 30_000 });
  await expect(page.locator("tbody tr")).toHaveCount(25);
  await page.getByRole("checkbox", { name: "Select every cluster on this page" }).check();
  await expect(page.getByTestId("bulk-selection")).toHaveText("25 selected clusters");
  await page.getByRole("button", { name: `Select all ${COUNT} matching` }).click();
  await expect(page.getByTestId("bulk-selection")).toHaveText(`All ${COUNT} clusters matching the current filter`);
}

async function previewTierGold(page: Page) {
  await page.getByRole("button", { name: "Edit labels…" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit labels" });
  await dialog.getByLabel("Add or change").fill("tier=gold");
  await dialog.getByRole("button", { name: "Preview changes" }).click();
  const preview = page.getByRole("dialog", { name: "Preview the label change" });
  await expect(preview.getByTestId("bulk-labels-summary")).toContainText(`${COUNT} clusters gain tier=gold`);
  await expect(preview.getByTestId("bulk-labels-summary")).toContainText("0 clusters unchanged");
  return preview;
}

test.describe("bulk label change", () => {
  test.use(asRole("operator"));

  test("select a page, then all matching, preview and apply a label change (desktop, with screenshots)", async ({
    page,
    apiAs,
  }) => {
    test.setTimeout(90_000);
    const run = `d${Date.now().toString(36)}`;
    await seedClusters(run);
    await selectAllMatching(page, run);
    const preview = await previewTierGold(page);

    // The README's screenshots: the list with the bulk action's preview open, light and dark.
    for (const theme of ["light", "dark"] as const) {
      await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), theme === "dark");
      await page.screenshot({ path: `docs/screenshots/clusters-bulk-${theme}.png` });
    }
    await page.evaluate(() => document.documentElement.classList.remove("dark"));

    await preview.getByRole("button", { name: `Apply to ${COUNT} clusters` }).click();
    await expect(page.getByTestId("bulk-labels-done")).toContainText(`Labels changed on ${COUNT} clusters`);

    const api = await apiAs("operator");
    const exported = await api.get(
      `/api/v1/clusters/export?format=json&selector=${encodeURIComponent(`bulke2e=${run},tier=gold`)}`,
    );
    expect(((await exported.json()) as unknown[]).length).toBe(COUNT);
    const audit = await (await api.get("/api/v1/audit?action=cluster.labels.bulk")).json();
    const entry = audit.items.find(
      (e: { details: { filter?: { selector?: string } } }) => e.details.filter?.selector === `bulke2e=${run}`,
    );
    expect(entry?.details.count).toBe(COUNT);
  });

  test("on a 390x844 phone the same flow works", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const run = `p${Date.now().toString(36)}`;
    await seedClusters(run);
    await selectAllMatching(page, run);
    const preview = await previewTierGold(page);
    await preview.getByRole("button", { name: `Apply to ${COUNT} clusters` }).click();
    await expect(page.getByTestId("bulk-labels-done")).toBeVisible();
  });
});

test.describe("viewers", () => {
  test.use(asRole("viewer"));

  test("see no selection boxes, and the bulk endpoint refuses them", async ({ page, apiAs }) => {
    await page.goto("/clusters");
    await expect(page.getByRole("heading", { name: "Clusters" })).toBeVisible();
    await expect(page.getByRole("checkbox", { name: "Select every cluster on this page" })).toHaveCount(0);
    const api = await apiAs("viewer");
    const r = await api.post("/api/v1/clusters/bulk/labels", {
      data: { filter: { selector: "env=prod" }, set: { tier: "x" } },
      headers: SAME_ORIGIN,
    });
    expect(r.status()).toBe(403);
  });
});
