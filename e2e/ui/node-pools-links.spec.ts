// The Node pools page: a NotReady cluster's pools are counted apart from the live figures ("as
// of" its last heartbeat), and every capacity bar opens the cluster list filtered to its row.
import { asRole, expect, test } from "../fixtures";
import { okJson } from "../support/agent-process";
import { execSql, sqlTimestamp } from "../support/database";
import { saveScreenshots } from "../support/screenshots";
import { startSimulator, stopSimulator, waitForReadyClusters } from "../support/simulator";

type Capacity = {
  rows: {
    key: string;
    clusters: number;
    pools: number;
    nodes: number;
    notReady: { clusters: number; pools: number; asOf: string | null };
  }[];
  notReady: { clusters: number; pools: number; asOf: string | null };
};
type Detail = { id: string; nodePools: { name: string }[] };

test.describe("node pools", () => {
  test.use(asRole("admin"));
  test.describe.configure({ timeout: 180_000 });

  test("counts a NotReady cluster's pools apart, and its bars open the filtered cluster list", async ({
    page,
    apiAs,
  }, testInfo) => {
    const run = `np-${Date.now().toString(36)}`;
    const admin = await apiAs("admin");
    const simulator = await startSimulator(admin, testInfo, {
      clusters: 3,
      label: ["e2e-pools", run],
      prefix: `e2e-${run}`,
      durationSeconds: 120,
    });
    let clusters: { id: string; name: string }[];
    try {
      clusters = await waitForReadyClusters(admin, simulator, `e2e-pools=${run}`, 3);
    } finally {
      await stopSimulator(simulator);
    }
    // One cluster went quiet two hours ago; the others were just heard from (they stay Ready for
    // the NotReady threshold, longer than this test needs).
    const [stale, ...live] = clusters;
    const quietenStale = () =>
      execSql(`UPDATE "Cluster" SET "lastHeartbeatAt" = ? WHERE "id" = ?`, [
        sqlTimestamp(new Date(Date.now() - 2 * 3600_000)),
        stale!.id,
      ]);
    await quietenStale();
    for (const c of live) await execSql(`UPDATE "Cluster" SET "lastHeartbeatAt" = ? WHERE "id" = ?`, [sqlTimestamp(), c.id]);
    const stalePools = (await okJson<Detail>(await admin.get(`/api/v1/clusters/${stale!.id}`))).nodePools.length;
    expect(stalePools).toBeGreaterThan(0);

    // The API: this run's row counts two live clusters and one NotReady cluster's pools apart.
    let row: Capacity["rows"][number] | undefined;
    await expect
      .poll(
        async () => {
          // The heartbeat writer may still flush the stopped simulator's last batch after the
          // update above; quieten the cluster again until the sweep has seen it.
          await quietenStale();
          const capacity = await okJson<Capacity>(await admin.get(`/api/v1/node-pools?by=e2e-pools`));
          row = capacity.rows.find((r) => r.key === run);
          return row && { clusters: row.clusters, notReady: row.notReady.clusters, pools: row.notReady.pools };
        },
        { message: "the status sweep marks the quiet cluster NotReady", timeout: 45_000 },
      )
      .toEqual({ clusters: 2, notReady: 1, pools: stalePools });
    expect(Date.parse(row!.notReady.asOf!)).toBeLessThan(Date.now() - 3600_000);

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/node-pools");
    // Fleet-wide: the notice says NotReady clusters' pools are apart, as of a time.
    await expect(page.getByTestId("stale-pools")).toContainText(/NotReady/);
    await expect(page.getByTestId("stale-pools")).toContainText("as of");

    // Grouped by this run's label: the row's NotReady pools link to the list filtered to them.
    const labelCard = page.locator("section").filter({ has: page.getByRole("heading", { name: "Capacity by label" }) });
    await labelCard.getByLabel("Group by").selectOption("e2e-pools");
    const tableRow = labelCard.locator(`tr[data-key="${run}"]`);
    const staleLink = tableRow.getByRole("link", { name: String(stalePools), exact: true });
    await expect(staleLink).toHaveAttribute("href", `/clusters?status=NotReady&selector=e2e-pools%3D${run}`);

    // Every bar of the region chart is a link to the list filtered to that region.
    const regionCard = page.locator("section").filter({ has: page.getByRole("heading", { name: "Capacity by region" }) });
    const bars = regionCard.locator('svg a[href^="/clusters?"]');
    await expect(bars.first()).toBeAttached();
    const hrefs = await bars.evaluateAll((els) => els.map((e) => e.getAttribute("href")!));
    for (const href of hrefs) expect(href).toMatch(/^\/clusters\?(status=NotReady&)?selector=(region%3D|%21region)/);
    await saveScreenshots(page, testInfo, "node-pools-not-ready");

    // Following the stale link lands on the filtered list with just the quiet cluster.
    await page.goto("/node-pools");
    await labelCard.getByLabel("Group by").selectOption("e2e-pools");
    await staleLink.click();
    await expect(page).toHaveURL(/\/clusters\?status=NotReady&selector=e2e-pools%3D/);
    await expect(page.locator(`main a[href="/clusters/${stale!.id}"]`).first()).toBeVisible();
    await expect(page.locator(`main a[href="/clusters/${live[0]!.id}"]`)).toHaveCount(0);

    // Phone: the notice and the table still carry the NotReady count.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/node-pools");
    await expect(page.getByTestId("stale-pools")).toBeVisible();
    await labelCard.getByLabel("Group by").selectOption("e2e-pools");
    await expect(staleLink).toBeVisible();
    for (const theme of ["light", "dark"] as const) {
      await page.evaluate((d) => document.documentElement.classList.toggle("dark", d), theme === "dark");
      const file = testInfo.outputPath(`node-pools-not-ready-phone-${theme}.png`);
      await page.screenshot({ path: file, fullPage: true });
      await testInfo.attach(`node-pools-not-ready-phone-${theme}`, { path: file, contentType: "image/png" });
    }
  });
});
