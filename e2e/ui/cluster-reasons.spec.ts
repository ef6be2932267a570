// Why a cluster needs attention, and what is stale: the reason badge in the
// list, a health filter applied from an Overview link, and a NotReady cluster's last-known facts
// greyed "as of" its last heartbeat. Clusters register through the agent port; their heartbeat
// age, reported facts and status history are then set in the database (a heartbeat 16 minutes
// old cannot be waited for).
import type { APIRequestContext, PlaywrightWorkerArgs } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { registerThroughAgentPort } from "../support/agent-api";
import { okJson, uniqueName } from "../support/agent-process";
import { execSql, sqlTimestamp } from "../support/database";
import { saveScreenshots } from "../support/screenshots";

// Four page loads, the first of each page cold, on a shared 2-core runner: generous waits.
const slow = expect.configure({ timeout: 30_000 });

const LABELS = { env: "e2e", region: "local" };

async function registered(admin: APIRequestContext, playwright: PlaywrightWorkerArgs["playwright"], name: string) {
  const minted = await okJson<{ token: string }>(
    await admin.post("/api/v1/registration-tokens", {
      data: { name: `e2e ${name}`, ttlSeconds: 600, maxClusters: 1 },
      headers: SAME_ORIGIN,
    }),
  );
  const answer = await registerThroughAgentPort(playwright, minted.token, name, LABELS);
  expect(answer.status).toBe(201);
  return answer.body.clusterId!;
}

/** A cluster whose agent last reported 16 minutes ago: API server ok, one pool of green nodes. */
async function staleCluster(id: string) {
  const heard = sqlTimestamp(new Date(Date.now() - 16 * 60_000));
  await execSql(
    `UPDATE "Cluster" SET "lastHeartbeatAt" = ?, "apiServerHealth" = 'ok', "kubernetesVersion" = '1.31.4',
     "agentVersion" = '1.4.0', "podCount" = 42, "namespaceCount" = 7, "status" = 'NotReady', "statusChangedAt" = ? WHERE "id" = ?`,
    [heard, heard, id],
  );
  await execSql(
    `INSERT INTO "NodePool" ("id", "clusterId", "name", "nodeCount", "readyNodes", "kubeletVersion", "state", "updatedAt")
     VALUES (?, ?, 'pool-stale', 3, 3, '1.31.4', 'Active', ?)`,
    [`np_${id}`, id, heard],
  );
}

/** A cluster heartbeating now that changed status six times in the last hour. */
async function flappingCluster(id: string, name: string) {
  await execSql(`UPDATE "Cluster" SET "lastHeartbeatAt" = ?, "apiServerHealth" = 'ok', "status" = 'Ready' WHERE "id" = ?`, [
    sqlTimestamp(),
    id,
  ]);
  for (let i = 0; i < 6; i++) {
    await execSql(
      `INSERT INTO "ClusterEvent" ("clusterId", "clusterName", "kind", "fromValue", "toValue", "reason", "at") VALUES (?, ?, 'status', ?, ?, 'e2e', ?)`,
      [
        id,
        name,
        i % 2 ? "NotReady" : "Ready",
        i % 2 ? "Ready" : "NotReady",
        sqlTimestamp(new Date(Date.now() - (i + 1) * 5 * 60_000)),
      ],
    );
  }
}

for (const viewport of [
  { name: "desktop", size: { width: 1440, height: 900 } },
  { name: "phone", size: { width: 390, height: 844 } },
]) {
  test.describe(`reasons and stale facts (${viewport.name})`, () => {
    test.use({ ...asRole("admin"), viewport: viewport.size });

    test("a reason badge in the list, a health filter from Overview, greyed 'as of' facts on a NotReady cluster", async ({
      page,
      apiAs,
      playwright,
    }, testInfo) => {
      test.setTimeout(150_000);
      const admin = await apiAs("admin");
      const staleName = uniqueName(`e2e-stale-${viewport.name}`);
      const flapName = uniqueName(`e2e-flap-${viewport.name}`);
      const staleId = await registered(admin, playwright, staleName);
      const flapId = await registered(admin, playwright, flapName);
      await staleCluster(staleId);
      await flappingCluster(flapId, flapName);

      // The list says why, in the reason column.
      await page.goto(`/clusters?q=${staleName}`);
      const staleRow = page.locator(`[data-cluster-id="${staleId}"]`);
      await slow(staleRow.getByTestId("cluster-reasons")).toContainText(/no heartbeat for 1\d min/);
      await slow(staleRow.getByText("NotReady", { exact: true })).toBeVisible();

      // Overview's flapping count opens the list filtered by health.
      await page.goto("/");
      const flapping = page.getByTestId("health-flapping");
      await slow(flapping).toBeVisible();
      await flapping.click();
      await slow(page).toHaveURL(/\/clusters\?health=flapping$/);
      await slow(page.getByLabel("Health")).toHaveValue("flapping");
      const flapRow = page.locator(`[data-cluster-id="${flapId}"]`);
      await slow(flapRow.getByTestId("cluster-reasons")).toContainText(/flapping — [67] changes in the last hour/);
      await slow(page.locator(`[data-cluster-id="${staleId}"]`)).toHaveCount(0);

      // Overview's "N blocked" (enrollment) opens the list filtered to clusters not enrolled; a
      // fresh registration is one of them. Enrollment has its own column, not a reason. (The
      // enrollment check runs every 10 s: the link appears with its first pass.)
      await page.goto("/");
      const blocked = page.getByTestId("enrollment-blocked");
      await slow(blocked).toContainText(/[\d,]+ blocked/);
      await blocked.click();
      await slow(page).toHaveURL(/\/clusters\?enrollment=blocked$/);
      await slow(page.getByLabel("Enrollment")).toHaveValue("blocked");
      // On a phone the filters are folded behind one button.
      if (viewport.name === "phone") await page.getByRole("button", { name: /^Filters/ }).click();
      await page.getByLabel("Search").fill(flapName);
      await slow(page).toHaveURL(/[?&]q=/);
      const blockedRow = page.locator(`[data-cluster-id="${flapId}"]`);
      await slow(blockedRow.getByTestId("cluster-reasons")).toContainText("flapping");
      await expect(blockedRow.getByTestId("cluster-reasons")).not.toContainText("enrolled");
      if (viewport.name === "desktop") await slow(blockedRow.locator('[data-enrollment="blocked"]')).toBeVisible();
      await page.getByLabel("Enrollment").selectOption("enrolled");
      await slow(page).toHaveURL(/[?&]enrollment=enrolled/);
      await slow(page.getByText(/No clusters match/i)).toBeVisible();

      // The NotReady cluster's page: every reported fact greyed, "as of" its last heartbeat.
      await page.goto(`/clusters/${staleId}`);
      await slow(page.getByTestId("cluster-reasons").first()).toContainText(/no heartbeat for 1\d min/);
      const asOf = page.getByTestId("as-of");
      await slow(asOf).toHaveCount(2);
      await slow(asOf.first()).toContainText(/as of .+ \(1\d min ago\)/);
      const stale = page.locator('[data-stale="true"]');
      await slow(stale).toHaveCount(2);
      // The health card (API server "ok", versions, workloads) and the node pools table.
      const health = stale.filter({ hasText: "42 pods" });
      await slow(health).toContainText("ok");
      await slow(health).toContainText("1.31.4");
      await slow(stale.filter({ hasText: "pool-stale" })).toHaveCount(1);
      expect(await health.evaluate((el) => getComputedStyle(el).filter)).toContain("grayscale");
      if (viewport.name === "desktop") await saveScreenshots(page, testInfo, "cluster-stale-facts");

      // A Ready cluster's facts are current: nothing greyed.
      // (Its heartbeat is refreshed first: this test may have run past the NotReady threshold.)
      await execSql(`UPDATE "Cluster" SET "lastHeartbeatAt" = ? WHERE "id" = ?`, [sqlTimestamp(), flapId]);
      await page.goto(`/clusters/${flapId}`);
      await slow(page.getByRole("heading", { name: flapName })).toBeAttached();
      await slow(page.getByTestId("as-of")).toHaveCount(0);
      await slow(page.locator('[data-stale="true"]')).toHaveCount(0);
    });
  });
}
