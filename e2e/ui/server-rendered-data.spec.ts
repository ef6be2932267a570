// Deep links paint their data without waiting for the JavaScript: every console page opens with
// its first data rendered on the server (lib/server/console/page-queries.ts) and hands the same
// data to the client's query cache, which does not ask for it again. Here: the Overview's counts,
// the cluster list's rows, a cluster's page, the audit log, the approval queue, Settings and the
// new-rollout form.
import { asRole, expect, SAME_ORIGIN, test } from "../fixtures";
import { registerThroughAgentPort } from "../support/agent-api";
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

  test("the audit log, the approval queue, Settings and the new-rollout form carry their data in the HTML", async ({
    page,
    apiAs,
    playwright,
  }) => {
    const run = `ssr-${Date.now().toString(36)}`;
    const admin = await apiAs("admin");
    // A token that requires approval (an audit entry naming it) and one registration waiting on it.
    const minted = await admin.post("/api/v1/registration-tokens", {
      data: { name: `token ${run}`, ttlSeconds: 3600, maxClusters: 1, requireApproval: true },
      headers: SAME_ORIGIN,
    });
    expect(minted.status()).toBe(201);
    const { token } = (await minted.json()) as { token: string };
    const waiting = await registerThroughAgentPort(playwright, token, `wait-${run}`, { env: "e2e", region: "ssr" });
    expect(waiting.status, JSON.stringify(waiting.body)).toBe(202);
    const ca = (await (await admin.get("/api/v1/ca")).json()) as { cas: { fingerprint: string }[] };

    // The documents themselves (no JavaScript run): rows, cards and forms, not skeletons.
    const audit = await (await admin.get(`/audit?action=${encodeURIComponent("token.")}`)).text();
    expect(audit).toContain('data-testid="audit-row"');
    expect(audit).toContain(`token ${run}`);
    const queue = await (await admin.get("/registration-requests")).text();
    expect(queue).toContain(`wait-${run}`);
    const settings = await (await admin.get("/settings")).text();
    expect(settings).toContain(ca.cas[0]!.fingerprint);
    const form = await (await admin.get("/rollouts/new")).text();
    expect(form).toContain('data-testid="form-plan"');

    // In the browser: the first paint has the data, and the client does not fetch it again.
    const apiCalls: string[] = [];
    page.on("request", (r) => {
      const url = new URL(r.url());
      const queueFirstPage = url.pathname === "/api/v1/registration-requests" && url.searchParams.get("state") === "pending";
      // The nav badge asks for the pending count (limit=1) on every page: that is not the queue.
      if (queueFirstPage && url.searchParams.get("limit") === "1") return;
      if (["/api/v1/audit", "/api/v1/settings", "/api/v1/ca", "/api/v1/versions"].includes(url.pathname) || queueFirstPage)
        apiCalls.push(`${url.pathname}${url.search}`);
    });
    await page.goto(`/audit?action=${encodeURIComponent("token.")}`);
    await expect(page.getByTestId("audit-row").first()).toBeVisible();
    await page.goto("/registration-requests");
    await expect(page.getByText(`wait-${run}`).first()).toBeVisible();
    await page.goto("/settings");
    await expect(page.getByText(ca.cas[0]!.fingerprint).first()).toBeVisible();
    await page.goto("/rollouts/new");
    await expect(page.getByTestId("form-plan")).toBeVisible();
    await page.waitForTimeout(500);
    expect(apiCalls, "queries refetched right after the page brought their data").toEqual([]);
  });
});
