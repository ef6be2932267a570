// The overview, the cluster list and the cluster detail against real agents: the reference agent
// CLI runs as a child process against the server's agent port, registers with a token minted
// through the API, and heartbeats. Everything is checked without reloading the page.
import type { APIRequestContext, Page, TestInfo } from "@playwright/test";
import { ACCOUNTS, SAME_ORIGIN, asRole, expect, expectApiError, test } from "../fixtures";
import { formatDuration } from "../../lib/domain/time-format";
import { AgentProcess, okJson, uniqueName } from "../support/agent-process";

// ---------------------------------------------------------------------------------------------
// Helpers (page objects for these pages would belong in e2e/pages; kept here while they are
// used by this file only). The agent process is e2e/support/agent-process.ts.

const LABELS = "env=e2e,region=local";

/** Registers a cluster with a real agent, then stops the agent; the cluster stays (NotReady later). */
async function registeredCluster(admin: APIRequestContext, testInfo: TestInfo, prefix: string) {
  const agent = await AgentProcess.start(admin, testInfo, uniqueName(prefix), { labels: LABELS });
  try {
    return { id: await agent.clusterId(admin), name: agent.name };
  } finally {
    await agent.stop();
  }
}

/** The number on an overview count card; 0 while the first-run empty state is shown instead. */
async function countOnOverview(page: Page, status: "Ready" | "NotReady" | "total"): Promise<number> {
  const card = page.getByTestId(`count-${status}`);
  if (!(await card.isVisible())) return 0;
  return Number((await card.getByTestId("count-value").innerText()).replace(/\D/g, ""));
}

/** Marks the page so a reload (which would lose the mark) is detectable. */
async function markNoReload(page: Page) {
  await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
}
async function expectNotReloaded(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
}

// ---------------------------------------------------------------------------------------------

test.describe("live status", () => {
  test.use(asRole("admin"));

  test("a cluster appears Ready on Overview and Clusters without a reload, and turns NotReady within threshold + 5 s of its agent stopping", async ({
    page,
    context,
    apiAs,
  }, testInfo) => {
    const admin = await apiAs("admin");
    // The fleet's own threshold: a shorter one would turn every other spec's clusters NotReady.
    // (The agent heartbeats every 2 s by its own flag, whatever the fleet's interval.)
    const THRESHOLD = (await okJson<{ notReadyThresholdSeconds: number }>(await admin.get("/api/v1/settings")))
      .notReadyThresholdSeconds;
    test.setTimeout(60_000 + THRESHOLD * 1000);
    const name = uniqueName("e2e-live");

    await page.goto("/");
    await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible();

    const list = await context.newPage();
    await list.goto(`/clusters?q=${name}`);
    await expect(list.getByText("No clusters match these filters")).toBeVisible();
    await expect(list.getByRole("status").filter({ hasText: "Live" })).toBeVisible();
    await expect(list.getByText(`NotReady after ${formatDuration(THRESHOLD * 1000)} without a heartbeat`)).toBeVisible();
    await markNoReload(page);
    await markNoReload(list);

    const agent = await AgentProcess.start(admin, testInfo, name, { labels: LABELS });
    const row = list.getByRole("row").filter({ hasText: name });
    const countOnServer = async (status: "Ready" | "NotReady") =>
      (await okJson<{ counts: Record<string, number> }>(await admin.get("/api/v1/overview"))).counts[status];
    try {
      await expect(row.getByText("Ready", { exact: true })).toBeVisible({ timeout: 20_000 });
      await expect(row).toContainText(/\d+ s ago/);
      // Other specs' clusters come and go meanwhile, so the card is held to the server's count
      // (which includes this cluster now), not to its old value.
      await expect
        .poll(async () => (await countOnOverview(page, "Ready")) === (await countOnServer("Ready")), { timeout: 10_000 })
        .toBe(true);
    } finally {
      await agent.stop();
    }
    const stoppedAt = Date.now();

    await expect(row.getByText("NotReady", { exact: true })).toBeVisible({ timeout: (THRESHOLD + 5) * 1000 });
    expect(Date.now() - stoppedAt).toBeLessThanOrEqual((THRESHOLD + 5) * 1000);
    // The same for NotReady: other specs' clusters come and go meanwhile, so the card is held to
    // the server's count (which has this cluster in it now), not to its value before.
    await expect
      .poll(async () => (await countOnOverview(page, "NotReady")) === (await countOnServer("NotReady")), { timeout: 10_000 })
      .toBe(true);

    await expectNotReloaded(page);
    await expectNotReloaded(list);
  });
});

test.describe("labels on the cluster detail page", () => {
  test.use(asRole("operator"));

  test("an operator adds a label, cannot remove a required one, and the change is audited", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(60_000);
    const admin = await apiAs("admin");
    const cluster = await registeredCluster(admin, testInfo, "e2e-labels");

    await page.goto(`/clusters/${cluster.id}`);
    await expect(page.getByRole("heading", { name: cluster.name })).toBeVisible();
    await page.getByRole("button", { name: "Edit labels" }).click();
    const editor = page.getByRole("form", { name: "Edit labels" });

    // A required label: the remove button is disabled and says why when reached.
    const removeEnv = editor.getByRole("button", { name: "Remove env" });
    await expect(removeEnv).toBeDisabled();
    await removeEnv.focus();
    await expect(editor.getByText(/"env" is a required label/)).toBeVisible();

    // Live syntax checks, then a valid label.
    await editor.getByRole("button", { name: "+ Add label" }).click();
    const key = editor.getByLabel(/^Key of label \d+$/).last();
    await key.fill("-owner");
    await expect(key).toHaveAttribute("aria-invalid", "true");
    await expect(editor.getByText(/Name must start and end with a letter or digit/)).toBeVisible();
    await expect(editor.getByRole("button", { name: "Save labels" })).toBeDisabled();
    await key.fill("e2e.example.com/owner");
    await editor.getByLabel("Value of e2e.example.com/owner").fill("platform");

    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/api/v1/clusters/${cluster.id}`) && r.request().method() === "PATCH"),
      editor.getByRole("button", { name: "Save labels" }).click(),
    ]);
    expect(response.status()).toBe(200);
    await expect(page.getByRole("status").filter({ hasText: "Labels saved: 1 added." })).toBeVisible();
    // The editor closed: focus is back on the button that opened it, not on <body>.
    await expect(page.getByRole("button", { name: "Edit labels" })).toBeFocused();
    await expect(page.getByRole("list", { name: "Labels" })).toContainText("e2e.example.com/owner=platform");

    const stored = await okJson<{ labels: Record<string, string> }>(await admin.get(`/api/v1/clusters/${cluster.id}`));
    expect(stored.labels).toEqual({ env: "e2e", region: "local", "e2e.example.com/owner": "platform" });

    const audit = await okJson<{ items: { actor: string; action: string; details: { labels?: { added?: object } } }[] }>(
      await admin.get(`/api/v1/audit?action=cluster.update&target=${cluster.id}`),
    );
    expect(audit.items[0]?.actor).toBe(ACCOUNTS.operator.email);
    expect(audit.items[0]?.details.labels?.added).toEqual({ "e2e.example.com/owner": "platform" });
  });

  test("a refusal from the server is shown and the optimistic change rolled back", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(60_000);
    const admin = await apiAs("admin");
    const cluster = await registeredCluster(admin, testInfo, "e2e-refused");
    // The server is asked to refuse the way it does when required labels changed meanwhile.
    await page.route(`**/api/v1/clusters/${cluster.id}`, (route) =>
      route.request().method() === "PATCH"
        ? route.fulfill({
            status: 422,
            contentType: "application/json",
            body: JSON.stringify({
              error: "missing_required_labels",
              message: "Required labels cannot be removed: team.",
              details: { missing: ["team"] },
            }),
          })
        : route.continue(),
    );
    await page.goto(`/clusters/${cluster.id}`);
    await page.getByRole("button", { name: "Edit labels" }).click();
    const editor = page.getByRole("form", { name: "Edit labels" });
    await editor.getByLabel("Value of region").fill("elsewhere");
    await editor.getByRole("button", { name: "Save labels" }).click();
    await expect(editor.getByRole("alert")).toHaveText("Required labels cannot be removed: team.");
    // The editor is back with what was typed; the cached labels are the server's again.
    await expect(editor.getByLabel("Value of region")).toHaveValue("elsewhere");
    await editor.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("list", { name: "Labels" })).toContainText("region=local");
  });
});

test.describe("as a viewer", () => {
  test.use(asRole("viewer"));

  test("labels are read-only on the page, and a PATCH through the API is refused", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(60_000);
    const admin = await apiAs("admin");
    const cluster = await registeredCluster(admin, testInfo, "e2e-viewer");

    await page.goto(`/clusters/${cluster.id}`);
    await expect(page.getByRole("heading", { name: cluster.name })).toBeVisible();
    await expect(page.getByRole("list", { name: "Labels" })).toContainText("env=e2e");
    await expect(page.getByRole("button", { name: "Edit labels" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /Revoke certificate/ })).toHaveCount(0);

    const viewer = await apiAs("viewer");
    const res = await viewer.patch(`/api/v1/clusters/${cluster.id}`, {
      data: { labels: { env: "e2e", region: "local", sneaky: "yes" } },
      headers: SAME_ORIGIN,
    });
    await expectApiError(res, 403, "forbidden");
    const stored = await okJson<{ labels: Record<string, string> }>(await admin.get(`/api/v1/clusters/${cluster.id}`));
    expect(stored.labels.sneaky).toBeUndefined();
  });
});

test.describe("screenshots", () => {
  test.use({ ...asRole("admin"), viewport: { width: 1440, height: 900 } });

  // One test per theme: three page loads and three full-page screenshots each fit the budget on a
  // loaded CI machine, where all six in one test once ran past it.
  for (const theme of ["light", "dark"] as const) {
    test(`Overview, Clusters and a cluster's detail at 1440x900, ${theme}`, async ({ page, apiAs }, testInfo) => {
      test.setTimeout(90_000);
      const admin = await apiAs("admin");
      const cluster = await registeredCluster(admin, testInfo, `e2e-shot-${theme}`);
      // The console follows the system theme until a choice is stored.
      await page.emulateMedia({ colorScheme: theme });
      await page.goto("/");
      await page.evaluate(() => localStorage.removeItem("theme"));

      await page.goto("/");
      await expect(page.getByTestId("count-total")).toBeVisible();
      await expect(page.getByRole("figure", { name: /Heartbeats per second/ })).toBeVisible();
      await shoot(page, testInfo, `overview-${theme}`);

      await page.goto("/clusters");
      await expect(page.getByRole("row").nth(1)).toBeVisible();
      await shoot(page, testInfo, `clusters-${theme}`);

      await page.goto(`/clusters/${cluster.id}`);
      await expect(page.getByRole("figure", { name: /Heartbeats per minute/ })).toBeVisible();
      await shoot(page, testInfo, `cluster-detail-${theme}`);
    });
  }
});

async function shoot(page: Page, testInfo: TestInfo, name: string) {
  // Let charts measure themselves and the live stream deliver its first summary.
  await page.waitForTimeout(750);
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}
