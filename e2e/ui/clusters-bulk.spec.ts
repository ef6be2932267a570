// Acting on many clusters from the list: select a page, widen to "all N matching",
// edit labels with a preview and a confirmation, on a desktop and a 390x844 phone. The desktop
// run saves the README's screenshots of the list with the bulk action in progress. Then the
// list's other tools: changing and removing labels (required ones refused), drain-then-deregister
// and a rollout for a selection, the page size, the column chooser, export and saved views; and
// the guards of a bulk drain (the breakdown, a reason, the count typed, no drain without a filter).
import type { APIRequestContext, Locator, Page, TestInfo } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { execSql, sqlTimestamp } from "../support/database";
import { saveScreenshots } from "../support/screenshots";

const COUNT = 60;

/**
 * COUNT Ready clusters labelled `bulke2e=<run>` (so the spec's filter sees only its own), in
 * `env` (staging: not production, so an operator's bulk drain needs only the count).
 */
async function seedClusters(run: string, env = "staging") {
  const now = sqlTimestamp();
  const ids = Array.from({ length: COUNT }, (_, i) => `cl_e2ebulk${run}${String(i).padStart(3, "0")}`);
  await execSql(
    `INSERT INTO "Cluster" ("id", "name", "phase", "registeredAt", "lastHeartbeatAt", "apiServerHealth", "createdAt", "updatedAt") VALUES ${ids.map(() => "(?, ?, 'Active', ?, ?, 'ok', ?, ?)").join(", ")}`,
    ids.flatMap((id, i) => [id, `bulk-${run}-${String(i).padStart(3, "0")}`, now, now, now, now]),
  );
  const labels = ids.flatMap((id, i) => [
    [id, "env", env],
    [id, "region", i % 2 ? "eu" : "us"],
    [id, "bulke2e", run],
  ]);
  await execSql(
    `INSERT INTO "ClusterLabel" ("clusterId", "key", "value") VALUES ${labels.map(() => "(?, ?, ?)").join(", ")}`,
    labels.flat(),
  );
}

const listUrl = (run: string, query = "") => `/clusters?selector=${encodeURIComponent(`bulke2e=${run}`)}${query}`;

async function selectAllMatching(page: Page, run: string) {
  await page.goto(listUrl(run, "&pageSize=25"));
  // The first list of a freshly started server can take a while on a loaded CI machine.
  await expect(page.getByTestId("clusters-total")).toHaveText(String(COUNT), { timeout: 30_000 });
  // Table rows at 1440, cards on a phone.
  await expect(page.locator("[data-cluster-id]")).toHaveCount(25);
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
      data: { filter: { selector: "env=staging" }, set: { tier: "x" } },
      headers: SAME_ORIGIN,
    });
    expect(r.status()).toBe(403);
  });
});

const rowBox = (page: Page, run: string, i: number) =>
  page.getByRole("checkbox", { name: `Select bulk-${run}-${String(i).padStart(3, "0")}` });

/** The first two clusters of the run (sorted by name), ticked one by one. */
async function pickTwo(page: Page, run: string) {
  await page.goto(listUrl(run));
  await expect(page.getByTestId("clusters-total")).toHaveText(String(COUNT), { timeout: 30_000 });
  await rowBox(page, run, 0).check();
  await rowBox(page, run, 1).check();
  await expect(page.getByTestId("bulk-selection")).toHaveText("2 selected clusters");
}

/** Fills the bulk label dialog and asks for the preview. */
async function editLabels(page: Page, change: { set?: string; remove?: string }): Promise<Locator> {
  const dialog = page.getByRole("dialog", { name: "Edit labels" });
  if (!(await dialog.isVisible())) await page.getByRole("button", { name: "Edit labels…" }).click();
  await dialog.getByLabel("Add or change").fill(change.set ?? "");
  await dialog.getByLabel("Remove").fill(change.remove ?? "");
  await dialog.getByRole("button", { name: "Preview changes" }).click();
  return dialog;
}

async function applyPreview(page: Page, count: number) {
  const preview = page.getByRole("dialog", { name: "Preview the label change" });
  await preview.getByRole("button", { name: `Apply to ${count} clusters` }).click();
  const done = page.getByRole("dialog", { name: "Labels changed" });
  await expect(done.getByTestId("bulk-labels-done")).toContainText(`Labels changed on ${count} clusters`);
  await done.getByRole("button", { name: "Done" }).click();
  await expect(done).toHaveCount(0);
  // The dialog gives focus back to the button that opened it (not to <body>).
  await expect(page.getByRole("button", { name: "Edit labels…" })).toBeFocused();
}

test.describe("the list's tools", () => {
  test.use({ ...asRole("operator"), viewport: { width: 1440, height: 900 } });

  test("change and remove labels on picked clusters; a required label cannot be removed", async ({ page, apiAs }) => {
    test.setTimeout(120_000); // several previews and changes, each a server round trip on a shared machine
    const run = `c${Date.now().toString(36)}`;
    await seedClusters(run);
    const api = await apiAs("operator");
    const admin = await apiAs("admin"); // (settings are an admin's to read)
    const { requiredLabels } = (await (await admin.get("/api/v1/settings")).json()) as { requiredLabels: string[] };
    const required = requiredLabels.includes("env") ? "env" : "region";
    expect(requiredLabels, "the e2e fleet requires env or region").toContain(required);
    await pickTwo(page, run);

    // Removing a required label is refused with the reason, and nothing is written.
    const dialog = await editLabels(page, { set: "tier=gold", remove: required });
    await expect(dialog).toContainText(`Required labels cannot be removed: ${required}`);

    // A change: the preview names the old and the new value, per value.
    await editLabels(page, { set: "region=apac" });
    const preview = page.getByRole("dialog", { name: "Preview the label change" });
    await expect(preview.getByTestId("bulk-labels-summary")).toContainText("1 cluster change region from us to apac");
    await expect(preview.getByTestId("bulk-labels-summary")).toContainText("1 cluster change region from eu to apac");
    await expect(preview.getByRole("table", { name: "Labels before and after, per cluster" }).locator("tbody tr")).toHaveCount(2);
    await applyPreview(page, 2);

    // A removal of an ordinary label: the two no longer match the list's filter.
    await editLabels(page, { remove: "bulke2e" });
    await expect(page.getByTestId("bulk-labels-summary")).toContainText("2 clusters lose bulke2e");
    await applyPreview(page, 2);
    await expect(page.getByTestId("clusters-total")).toHaveText(String(COUNT - 2));

    const ids = [0, 1].map((i) => `cl_e2ebulk${run}${String(i).padStart(3, "0")}`);
    for (const id of ids) {
      const cluster = (await (await api.get(`/api/v1/clusters/${id}`)).json()) as { labels: Record<string, string> };
      expect(cluster.labels).toEqual({ env: "staging", region: "apac" });
    }
    // One audit entry per applied change, each naming the picked ids (the refused one wrote nothing).
    const audit = (await (await api.get("/api/v1/audit?action=cluster.labels.bulk&limit=50")).json()) as {
      items: { details: { ids?: string[]; remove?: string[]; set?: Record<string, string> } }[];
    };
    const ours = audit.items.filter((e) => e.details.ids?.includes(ids[0]!));
    expect(ours).toHaveLength(2);
  });

  test("drain-then-deregister and a rollout for the picked clusters", async ({ page, apiAs }) => {
    test.setTimeout(120_000); // the list twice, the new-rollout page, the drain's dry run and start, on a shared machine
    const run = `r${Date.now().toString(36)}`;
    await seedClusters(run);
    await pickTwo(page, run);
    const ids = [0, 1].map((i) => `cl_e2ebulk${run}${String(i).padStart(3, "0")}`);

    // "Create a rollout…" opens the new rollout with exactly these clusters.
    await page.getByRole("link", { name: "Create a rollout…" }).click();
    await expect(page).toHaveURL(new RegExp(`/rollouts/new\\?clusters=${ids.join("%2C")}$`));
    await expect(page.getByRole("radio", { name: "These 2 clusters" })).toBeChecked({ timeout: 30_000 });
    await page.goBack();

    await pickTwo(page, run);
    await page.getByRole("button", { name: "Drain and deregister…" }).click();
    const dialog = page.getByRole("dialog", { name: "Start drain-then-deregister" });
    // The count to confirm comes from the server's dry run.
    await expect(dialog.getByTestId("bulk-drain-count")).toContainText("2 clusters selected; 2 can start draining now");
    await dialog.getByLabel("Type 2 to confirm").fill("2");
    await dialog.getByLabel("Reason").fill("e2e: retire two");
    await dialog.getByRole("button", { name: "Start drain on 2 clusters" }).click();
    await expect(page.getByTestId("bulk-drain-done")).toContainText("Drain started on 2 of 2 clusters");

    const api = await apiAs("operator");
    for (const id of ids) {
      const wizard = (await (await api.get(`/api/v1/clusters/${id}/deregistration`)).json()) as {
        startedBy: string | null;
        availableActions: string[];
      };
      expect(wizard.startedBy, `${id}: the drain was started by the operator`).toBe("operator@fleet.test");
      expect(wizard.availableActions, id).not.toContain("start");
    }
    const audit = (await (await api.get("/api/v1/audit?action=cluster.deregistration.bulk_start")).json()) as {
      items: { details: { started?: number; reason?: string } }[];
    };
    expect(audit.items.find((e) => e.details.reason === "e2e: retire two")?.details.started).toBe(2);
  });

  test("page size, columns, export and saved views; the sidebar runs the page's whole length", async ({
    page,
    apiAs,
  }, testInfo) => {
    test.setTimeout(90_000);
    const run = `t${Date.now().toString(36)}`;
    await seedClusters(run);
    await page.goto(listUrl(run));
    await expect(page.getByTestId("clusters-total")).toHaveText(String(COUNT), { timeout: 30_000 });

    // Page size: in the URL, the list follows. Its label reads on one line beside the other tools.
    const perPage = page.getByText("Per page", { exact: true });
    const perPageLines = await perPage.evaluate(
      (el) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight),
    );
    expect(perPageLines, '"Per page" in lines').toBeLessThan(1.5);
    await page.getByLabel("Per page").selectOption("100");
    await expect(page).toHaveURL(/[?&]pageSize=100(&|$)/);
    await expect(page.locator("tbody tr")).toHaveCount(COUNT);
    // A long page at 1440: the sidebar (and its background) reaches the bottom of the page.
    const heights = await page.evaluate(() => ({
      page: document.scrollingElement!.scrollHeight,
      aside: document.querySelector("aside")!.getBoundingClientRect().height,
    }));
    expect(heights.page, "the page is longer than the window").toBeGreaterThan(1800);
    expect(heights.aside).toBeGreaterThanOrEqual(heights.page - 1);
    await page.getByLabel("Per page").selectOption("25");
    await expect(page.locator("tbody tr")).toHaveCount(25);
    await expect(page.getByRole("navigation", { name: "Pages" })).toContainText("1–25 of 60");

    // Columns: region and nodes on, agent off; kept across a reload.
    await page.getByText("Columns", { exact: true }).click();
    const chooser = page.getByRole("group", { name: "Columns to show" });
    await chooser.getByLabel("Region").check();
    await chooser.getByLabel("Nodes").check();
    await chooser.getByLabel("Agent").uncheck();
    const header = page.locator("thead");
    await expect(header.getByRole("columnheader", { name: "Region" })).toBeVisible();
    await expect(header.getByRole("columnheader", { name: "Nodes" })).toBeVisible();
    await expect(header.getByRole("columnheader", { name: "Agent" })).toHaveCount(0);
    await expect(
      page
        .locator("tbody tr")
        .first()
        .locator("td", { hasText: /^(eu|us)$/ }),
    ).toHaveCount(1);
    await saveScreenshots(page, testInfo, "clusters-columns");
    await page.reload();
    await expect(page.locator("thead").getByRole("columnheader", { name: "Region" })).toBeVisible({ timeout: 30_000 });
    await expect(page.locator("thead").getByRole("columnheader", { name: "Agent" })).toHaveCount(0);

    // Export: the current filter, every match (not the page), CSV with ISO times, and JSON.
    await page.getByText("Export", { exact: true }).click();
    for (const format of ["csv", "json"] as const) {
      const link = page.getByRole("link", { name: `Download ${format.toUpperCase()}` });
      const href = (await link.getAttribute("href"))!;
      expect(new URL(href, "http://x").searchParams.get("selector")).toBe(`bulke2e=${run}`);
      const res = await page.request.get(href);
      expect(res.status()).toBe(200);
      if (format === "csv") {
        const lines = (await res.text()).trimEnd().split(/\r?\n/);
        expect(lines).toHaveLength(COUNT + 1);
        expect(lines[1]).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z/);
      } else expect(((await res.json()) as unknown[]).length).toBe(COUNT);
    }
    await page.getByText("Export", { exact: true }).click();

    // Saved views: this filter saved under a name, shared with the fleet (a viewer sees it), a link back.
    const name = `e2e view ${run}`;
    await page.getByLabel("Name of the new view").fill(name);
    await page.getByRole("button", { name: "Save view" }).click();
    const views = page.getByRole("region", { name: "Saved views" });
    const viewLink = views.getByRole("link", { name });
    await expect(viewLink).toBeVisible();
    const viewer = await apiAs("viewer");
    const shared = (await (await viewer.get("/api/v1/clusters/views")).json()) as { items: { name: string; query: string }[] };
    expect(shared.items.find((v) => v.name === name)?.query).toContain(`bulke2e%3D${run}`);
    await page.goto("/clusters");
    await page.getByRole("region", { name: "Saved views" }).getByRole("link", { name }).click();
    await expect(page).toHaveURL(new RegExp(`selector=bulke2e%3D${run}`));
    await expect(page.getByTestId("clusters-total")).toHaveText(String(COUNT));
    await page.getByRole("button", { name: `Delete view ${name}` }).click();
    await expect(page.getByRole("region", { name: "Saved views" }).getByRole("link", { name })).toHaveCount(0);
  });

  test("on a 390x844 phone the tools fit the screen", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const run = `q${Date.now().toString(36)}`;
    await seedClusters(run);
    await pickTwo(page, run);
    const inScreen = async (locator: Locator, what: string) => {
      const box = (await locator.boundingBox())!;
      expect(box.x, `${what} starts on screen`).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, `${what} ends on screen`).toBeLessThanOrEqual(390);
    };
    await page.getByText("Columns", { exact: true }).click();
    await inScreen(page.getByRole("group", { name: "Columns to show" }), "the column chooser");
    // Closed again: with the fleet's label keys the chooser is long enough to cover what follows.
    await page.getByText("Columns", { exact: true }).click();
    await page.getByText("Export", { exact: true }).click();
    await inScreen(page.getByRole("link", { name: "Download CSV" }), "the export menu");
    await page.getByText("Export", { exact: true }).click();
    await inScreen(page.getByRole("region", { name: "Bulk actions" }), "the bulk actions");
    await page.getByRole("button", { name: "Drain and deregister…" }).click();
    const dialog = page.getByRole("dialog", { name: "Start drain-then-deregister" });
    await expect(dialog.getByTestId("bulk-drain-count")).toContainText("2 clusters selected; 2 can start");
    await inScreen(dialog, "the drain dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("button", { name: "Drain and deregister…" })).toBeFocused();
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  });
});

/** The window as it is (a dialog open), light and dark, attached to the test. */
async function themeShots(page: Page, testInfo: TestInfo, name: string) {
  await page.waitForTimeout(300); // the dialog's entrance
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), theme === "dark");
    const file = testInfo.outputPath(`${name}-${theme}.png`);
    await page.screenshot({ path: file });
    await testInfo.attach(`${name}-${theme}`, { path: file, contentType: "image/png" });
  }
  await page.evaluate(() => document.documentElement.classList.remove("dark"));
}

/**
 * "All matching" a filter -> the drain dialog: the selection by env, region and group, nothing
 * starts without the count typed and a reason, a cluster that joins meanwhile makes it ask again,
 * then the first ten start draining and the rest wait in the queue, until cancelled.
 */
async function guardedDrain(
  page: Page,
  testInfo: TestInfo,
  apiAs: (role: "operator") => Promise<APIRequestContext>,
  shots: string,
) {
  const run = `g${shots[0]}${Date.now().toString(36)}`;
  await seedClusters(run);
  const api = await apiAs("operator");
  const group = `drill-${run}`;
  const created = await api.post("/api/v1/groups", {
    data: { name: group, selector: `bulke2e=${run},region=eu` },
    headers: SAME_ORIGIN,
  });
  expect(created.status(), await created.text()).toBe(201);
  const wizardStep = async (i: number) =>
    (
      (await (await api.get(`/api/v1/clusters/cl_e2ebulk${run}${String(i).padStart(3, "0")}/deregistration`)).json()) as {
        step: string | null;
      }
    ).step;

  await selectAllMatching(page, run);
  await page.getByRole("button", { name: "Drain and deregister…" }).click();
  const dialog = page.getByRole("dialog", { name: "Start drain-then-deregister" });
  await expect(dialog.getByTestId("bulk-drain-count")).toContainText(`${COUNT} clusters selected`, { timeout: 30_000 });
  const breakdown = dialog.getByTestId("bulk-drain-breakdown");
  await expect(breakdown.locator("li", { hasText: "staging" })).toContainText(String(COUNT));
  await expect(breakdown.locator("li", { hasText: /^eu/ })).toContainText(String(COUNT / 2));
  await expect(breakdown.locator("li", { hasText: /^us/ })).toContainText(String(COUNT / 2));
  await expect(breakdown.locator("li", { hasText: group })).toContainText(String(COUNT / 2));
  await expect(dialog.getByLabel(`Type ${COUNT} to confirm`)).toBeVisible();
  const start = dialog.getByRole("button", { name: `Start drain on ${COUNT} clusters` });
  await inWindow(page, dialog, "the drain dialog");
  await themeShots(page, testInfo, shots);

  // Neither the count nor a reason: refused in the dialog, nothing starts.
  await start.click();
  await expect(dialog).toContainText(`Type the count exactly as shown (${COUNT}) to confirm.`);
  await expect(dialog).toContainText("Say why; the reason is kept in the audit log.");
  // A reason and the wrong count: still refused.
  await dialog.getByLabel("Reason").fill(`e2e: drill ${run}`);
  await dialog.getByLabel(`Type ${COUNT} to confirm`).fill(String(COUNT - 1));
  await start.click();
  await expect(dialog).toContainText(`Type the count exactly as shown (${COUNT}) to confirm.`);
  // The count and no reason: refused.
  await dialog.getByLabel("Reason").fill("  ");
  await dialog.getByLabel(`Type ${COUNT} to confirm`).fill(String(COUNT));
  await start.click();
  await expect(dialog).toContainText("Say why; the reason is kept in the audit log.");
  expect(await wizardStep(0), "nothing started").toBeNull();

  // One more cluster joins the filter after the count was seen: the server refuses, the dialog counts again.
  const late = `cl_e2ebulk${run}late`;
  const now = sqlTimestamp();
  await execSql(
    `INSERT INTO "Cluster" ("id", "name", "phase", "registeredAt", "lastHeartbeatAt", "apiServerHealth", "createdAt", "updatedAt") VALUES (?, ?, 'Active', ?, ?, 'ok', ?, ?)`,
    [late, `bulk-${run}-late`, now, now, now, now],
  );
  await execSql(`INSERT INTO "ClusterLabel" ("clusterId", "key", "value") VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)`, [
    ...[late, "env", "staging"],
    ...[late, "region", "us"],
    ...[late, "bulke2e", run],
  ]);
  await dialog.getByLabel("Reason").fill(`e2e: drill ${run}`);
  await start.click();
  await expect(dialog.getByRole("alert")).toContainText(`The selection changed from ${COUNT} to ${COUNT + 1} clusters`);
  expect(await wizardStep(0), "nothing started").toBeNull();
  await dialog.getByLabel(`Type ${COUNT + 1} to confirm`).fill(String(COUNT + 1));
  await dialog.getByLabel("Reason").fill(`e2e: drill ${run}`);
  await dialog.getByRole("button", { name: `Start drain on ${COUNT + 1} clusters` }).click();
  // Ten start at once (the default pace); the rest wait their turn, ten a minute, until cancelled.
  await expect(page.getByTestId("bulk-drain-done")).toContainText(`Drain started on 10 of ${COUNT + 1} clusters`, {
    timeout: 60_000,
  });
  await expect(page.getByTestId("bulk-drain-queued")).toContainText(
    `${COUNT - 9} more wait in the drain queue and start 10 a minute`,
  );
  expect(await wizardStep(0)).toBe("draining");
  expect(await wizardStep(COUNT - 1), "queued, not started").toBeNull();
  await page.getByRole("button", { name: `Cancel the ${COUNT - 9} queued drains` }).click();
  await expect(page.getByTestId("bulk-drain-cancelled")).toHaveText(`Cancelled the ${COUNT - 9} drains that had not started.`);
  const audit = (await (await api.get("/api/v1/audit?action=cluster.deregistration.bulk_start&limit=50")).json()) as {
    items: { details: { count?: number; reason?: string } }[];
  };
  expect(audit.items.find((e) => e.details.reason === `e2e: drill ${run}`)?.details.count).toBe(COUNT + 1);
  const groupId = ((await created.json()) as { id: string }).id;
  expect((await api.delete(`/api/v1/groups/${groupId}`, { headers: SAME_ORIGIN })).status()).toBe(204);
}

/** Every part of `locator` inside the window's width. */
async function inWindow(page: Page, locator: Locator, what: string) {
  const width = page.viewportSize()!.width;
  const box = (await locator.boundingBox())!;
  expect(box.x, `${what} starts on screen`).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, `${what} ends on screen`).toBeLessThanOrEqual(width);
}

test.describe("production clusters in a bulk drain", () => {
  test.use(asRole("admin"));

  test("need an admin who types what the drain does; it is audited as such", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    const run = `p${Date.now().toString(36)}`;
    await seedClusters(run, "prod");
    const phrase = `drain ${COUNT} clusters, ${COUNT} in production`;
    // An operator is refused, whatever they type.
    const operator = await apiAs("operator");
    const refused = await operator.post("/api/v1/clusters/bulk/deregistration", {
      data: { filter: { selector: `bulke2e=${run}` }, reason: "x", confirmCount: COUNT, confirmPhrase: phrase },
      headers: SAME_ORIGIN,
    });
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe("admin_required");

    await selectAllMatching(page, run);
    await page.getByRole("button", { name: "Drain and deregister…" }).click();
    const dialog = page.getByRole("dialog", { name: "Start drain-then-deregister" });
    await expect(dialog.getByTestId("bulk-guard")).toContainText(`This selection includes ${COUNT} production clusters.`, {
      timeout: 30_000,
    });
    // Paced: ten at once, then ten a minute.
    await expect(dialog.getByTestId("bulk-drain-count")).toContainText("10 at once, then 10 a minute (about 5 min in all)");
    const typed = dialog.getByLabel(`Type ${phrase} to confirm`);
    await expect(typed).toBeVisible();
    await themeShots(page, testInfo, "bulk-drain-production");
    // The count alone is not the sentence.
    await typed.fill(String(COUNT));
    await dialog.getByLabel("Reason").fill(`e2e: production ${run}`);
    const start = dialog.getByRole("button", { name: `Start drain on ${COUNT} clusters` });
    await start.click();
    await expect(dialog).toContainText(`Type the sentence exactly as shown (${phrase}) to confirm.`);
    await typed.fill(phrase);
    await start.click();
    await expect(page.getByTestId("bulk-drain-done")).toContainText(`Drain started on 10 of ${COUNT} clusters`, {
      timeout: 60_000,
    });
    await page.getByRole("button", { name: `Cancel the ${COUNT - 10} queued drains` }).click();
    await expect(page.getByTestId("bulk-drain-cancelled")).toBeVisible();
    const audit = (await (await operator.get("/api/v1/audit?action=cluster.deregistration.bulk_start&limit=50")).json()) as {
      items: { details: { reason?: string; guard?: { reasons: string[]; production: number } } }[];
    };
    expect(audit.items.find((e) => e.details.reason === `e2e: production ${run}`)?.details.guard).toMatchObject({
      reasons: ["production"],
      production: COUNT,
    });
  });
});

test.describe("bulk drain guards", () => {
  test.use(asRole("operator"));

  test("the drain shows the breakdown and needs the count typed and a reason (desktop)", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(150_000); // two dry runs and 61 drains on a shared machine
    await page.setViewportSize({ width: 1440, height: 900 });
    await guardedDrain(page, testInfo, apiAs, "bulk-drain-desktop");
  });

  test("the same on a 390x844 phone", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(150_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await guardedDrain(page, testInfo, apiAs, "bulk-drain-phone");
  });

  test("retiring a pool on the selection shows who would retire and why not, and needs the count and a reason", async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    const run = `r${Date.now().toString(36)}`;
    await seedClusters(run);
    const now = sqlTimestamp();
    // Every cluster has pools spot and general, but the first has spot alone: its last pool.
    const pools = Array.from({ length: COUNT }, (_, i) => `cl_e2ebulk${run}${String(i).padStart(3, "0")}`).flatMap((id, i) =>
      (i ? ["spot", "general"] : ["spot"]).map((name) => [`np_${id}_${name}`, id, name, 2, 2, now]),
    );
    await execSql(
      `INSERT INTO "NodePool" ("id", "clusterId", "name", "nodeCount", "readyNodes", "updatedAt") VALUES ${pools.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}`,
      pools.flat(),
    );
    await selectAllMatching(page, run);
    await page.getByRole("button", { name: "Retire a pool…" }).click();
    const dialog = page.getByRole("dialog", { name: "Retire a node pool on the selection" });
    await dialog.getByLabel("Node pool name").fill("spot");
    await dialog.getByRole("button", { name: "Check" }).click();
    await expect(dialog.getByTestId("bulk-retire-count")).toContainText(
      `${COUNT} clusters selected; pool spot can retire on ${COUNT - 1} of them`,
      { timeout: 30_000 },
    );
    await expect(dialog.getByTestId("bulk-drain-breakdown")).toContainText("staging");
    await expect(dialog).toContainText("spot is the cluster's last active node pool");
    const confirm = dialog.getByRole("button", { name: `Retire spot on ${COUNT - 1} clusters` });
    await confirm.click();
    await expect(dialog).toContainText(`Type the count exactly as shown (${COUNT}) to confirm.`);
    await expect(dialog).toContainText("Say why; the reason is kept in the audit log.");
    await themeShots(page, testInfo, "bulk-retire-pool");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);
  });

  for (const [name, size] of [
    ["desktop", { width: 1440, height: 900 }],
    ["phone", { width: 390, height: 844 }],
  ] as const)
    test(`"all matching" with no filter cannot be drained, and says why (${name})`, async ({ page, apiAs }, testInfo) => {
      test.setTimeout(90_000);
      await page.setViewportSize(size);
      await seedClusters(`n${name[0]}${Date.now().toString(36)}`); // more clusters than a page of 25
      await page.goto("/clusters?pageSize=25");
      await expect(page.locator("[data-cluster-id]")).toHaveCount(25, { timeout: 30_000 });
      await page.getByRole("checkbox", { name: "Select every cluster on this page" }).check();
      await page.getByRole("button", { name: /^Select all .* matching$/ }).click();
      await expect(page.getByTestId("bulk-selection")).toContainText("clusters matching the current filter");
      const drain = page.getByRole("button", { name: "Drain and deregister…" });
      await expect(drain).toBeDisabled();
      await expect(drain).toHaveAccessibleDescription(/need a filter/);
      await expect(page.getByText(/Drain and deregister, and retiring a pool, need a filter/)).toBeVisible();
      await expect(page.getByRole("button", { name: "Edit labels…" })).toBeEnabled();
      await themeShots(page, testInfo, `bulk-drain-no-filter-${name}`);
      const api = await apiAs("operator");
      const refused = await api.post("/api/v1/clusters/bulk/deregistration", {
        data: { filter: {}, reason: "everything", confirmCount: 1 },
        headers: SAME_ORIGIN,
      });
      expect(refused.status()).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe("filter_required");
    });
});
