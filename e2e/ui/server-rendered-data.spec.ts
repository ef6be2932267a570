// Deep links paint their data without waiting for the JavaScript: the server renders the
// Overview's counts, the cluster list's rows and a cluster's page with their first data, and
// hands the same data to the client's query cache, which does not ask for it again.
import { asRole, expect, test } from "../fixtures";
import { startSimulator, stopSimulator, waitForReadyClusters } from "../support/simulator";

test.describe("server-rendered first data", () => {
  test.use(asRole("admin"));
  test.describe.configure({ timeout: 120_000 });

  test("the Overview, the cluster list and a cluster's page carry their data in the HTML", async ({ page, apiAs }, testInfo) => {
    const run = `ssr-${Date.now().toString(36)}`;
    const admin = await apiAs("admin");
    const simulator = await startSimulator(admin, testInfo, {
      clusters: 1,
      label: ["e2e-ssr", run],
      prefix: `e2e-${run}`,
      durationSeconds: 120,
    });
    let cluster: { id: string; name: string };
    try {
      [cluster] = (await waitForReadyClusters(admin, simulator, `e2e-ssr=${run}`, 1)) as [{ id: string; name: string }];
    } finally {
      await stopSimulator(simulator);
    }

    // The document itself (no JavaScript run): rendered cards, rows and heading, not skeletons.
    const overview = await (await admin.get("/")).text();
    expect(overview).toMatch(/data-testid="count-Ready"/);
    const list = await (await admin.get(`/clusters?selector=${encodeURIComponent(`e2e-ssr=${run}`)}`)).text();
    expect(list).toContain(`href="/clusters/${cluster.id}"`);
    const detail = await (await admin.get(`/clusters/${cluster.id}`)).text();
    expect(detail).toMatch(new RegExp(`<h1[^>]*>[^<]*${cluster.name}`));

    // In the browser: the first paint has the data, and the client does not fetch it again.
    const apiCalls: string[] = [];
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path === "/api/v1/overview" || path === `/api/v1/clusters/${cluster.id}`) apiCalls.push(path);
    });
    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto("/");
      await expect(page.getByTestId("count-Ready")).toBeVisible();
      await page.goto(`/clusters/${cluster.id}`);
      await expect(page.locator("main h1")).toContainText(cluster.name);
    }
    await page.waitForTimeout(500);
    expect(apiCalls, "queries refetched right after the page brought their data").toEqual([]);
  });
});
