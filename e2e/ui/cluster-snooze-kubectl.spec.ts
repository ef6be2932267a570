// Silence and a way in, on the cluster page: an operator snoozes a known-broken cluster (it shows
// on the page, in the list with its owner, and leaves needs attention), and an admin's kubectl
// context template puts --context into every command the page offers. Versions and Tokens say
// when the agent image is a placeholder nobody can pull.
import type { APIRequestContext, PlaywrightWorkerArgs } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { enrolTestAgent, type TestAgent } from "../support/agent-api";
import { okJson } from "../support/agent-process";
import { saveScreenshots } from "../support/screenshots";

const run = Date.now().toString(36);

async function enrol(
  playwright: PlaywrightWorkerArgs["playwright"],
  admin: APIRequestContext,
  suffix: string,
): Promise<TestAgent> {
  const token = await okJson<{ token: string }>(
    await admin.post("/api/v1/registration-tokens", {
      data: { name: `e2e snooze ${run} ${suffix}`, ttlSeconds: 600, maxClusters: 1, fixedLabels: { "e2e-snooze": run } },
      headers: SAME_ORIGIN,
    }),
  );
  return enrolTestAgent(playwright, token.token, `e2e-snz-${run}-${suffix}`, { env: "dev", region: "eu-west-1" });
}

test.describe("snooze and kubectl commands on the cluster page", () => {
  test.use(asRole("admin"));

  test("a snoozed cluster says so on its page and in the list; commands name its kubectl context", async ({
    page,
    playwright,
    apiAs,
  }, testInfo) => {
    test.setTimeout(90_000);
    const admin = await apiAs("admin");
    const agent = await enrol(playwright, admin, "a");
    const setContext = (kubeContextTemplate: string | null) =>
      admin.patch("/api/v1/settings", { data: { kubeContextTemplate }, headers: SAME_ORIGIN });
    try {
      await agent.heartbeat({});
      const refused = await setContext("my context {name}");
      expect(refused.status()).toBe(400);
      expect((await refused.json()).message).toMatch(/no spaces or quotes/);
      await okJson(await setContext("gke_acme_{label:region}_{name}"));

      await page.goto(`/clusters/${agent.clusterId}`);
      await expect(page.getByRole("heading", { level: 1, name: agent.name })).toBeVisible({ timeout: 30_000 });
      const commands = page.getByTestId("kubectl-commands");
      const context = `gke_acme_eu-west-1_${agent.name}`;
      await expect(commands).toContainText(`kubectl --context ${context} -n fleet-system get lease fleet-agent`);
      await expect(commands).toContainText(`kubectl --context ${context} -n fleet-system get secrets fleet-agent-state`);
      await expect(page.getByRole("button", { name: "Copy all" })).toBeVisible();

      // Snooze through the dialog: reason and owner are required.
      await page.getByRole("button", { name: "Snooze…" }).click();
      const dialog = page.getByRole("dialog", { name: `Snooze ${agent.name}` });
      await dialog.getByRole("button", { name: "Snooze" }).click();
      await expect(dialog.getByText("Say why the cluster is snoozed")).toBeVisible();
      await dialog.getByLabel("Reason").fill("vendor case 4711: storage array replaced Monday");
      await dialog.getByLabel("Looked after by").fill("team-storage");
      await dialog.getByRole("button", { name: "Snooze" }).click();
      await expect(dialog).toHaveCount(0);
      await expect(page.getByTestId("cluster-snooze")).toContainText("team-storage");
      await expect(page.getByRole("button", { name: "Unsnooze" })).toBeVisible();
      await saveScreenshots(page, testInfo, "cluster-snoozed-kubectl");

      const audit = await okJson<{ items: { action: string }[] }>(await admin.get("/api/v1/audit?action=cluster.snooze"));
      expect(audit.items.length).toBeGreaterThan(0);

      // The list shows the snooze and finds the cluster by its snooze filter.
      await page.goto(`/clusters?snoozed=true&selector=${encodeURIComponent(`e2e-snooze=${run}`)}`);
      await expect(page.getByTestId("snoozed-chip").first()).toContainText("Snoozed (team-storage)");

      await page.goto(`/clusters/${agent.clusterId}`);
      await page.getByRole("button", { name: "Unsnooze" }).click();
      await expect(page.getByRole("button", { name: "Snooze…" })).toBeVisible();
    } finally {
      await okJson(await setContext(null));
      await agent.dispose();
    }
  });

  test("Versions warns that the agent image is a placeholder, saying what to set", async ({ page }, testInfo) => {
    await page.goto("/versions");
    const warning = page.getByTestId("agent-image-warning");
    await expect(warning).toContainText("AGENT_IMAGE");
    await expect(warning).toContainText("set AGENT_IMAGE to its reference");
    await expect(page.getByTestId("recommended-version")).toHaveText("1.4.0");
    await saveScreenshots(page, testInfo, "versions-agent-image-warning");
  });
});
