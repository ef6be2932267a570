// A staged agent upgrade in the browser over simulated clusters: the simulator runs as a child
// process (it performs `upgrade` directives and reports the new version), an operator plans the
// rollout with a canary stage and a batch, and watches it go from Running to Completed stage by
// stage without reloading the page.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { APIRequestContext, TestInfo } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { AGENT_PORT } from "../support/run";
import { saveScreenshots } from "../support/screenshots";

async function json<T>(res: Awaited<ReturnType<APIRequestContext["get"]>>): Promise<T> {
  expect(res.ok(), `${res.url()} -> ${res.status()} ${await res.text()}`).toBeTruthy();
  return (await res.json()) as T;
}

const CLUSTERS = 4;

/**
 * `npm run simulate` with a token whose fixed label marks every simulated cluster of this run, so
 * the rollout's selector matches exactly these and nothing other tests registered.
 */
async function startSimulator(
  admin: APIRequestContext,
  testInfo: TestInfo,
  run: string,
): Promise<ChildProcess & { log: () => string }> {
  const fleet = await json<{ caFingerprint: string }>(await admin.get("/api/v1/fleet"));
  const token = await json<{ token: string }>(
    await admin.post("/api/v1/registration-tokens", {
      data: { name: `e2e rollout ${run}`, ttlSeconds: 3600, maxClusters: CLUSTERS, fixedLabels: { "e2e-rollout": run } },
      headers: SAME_ORIGIN,
    }),
  );
  const root = path.dirname(testInfo.config.configFile ?? path.join(process.cwd(), "playwright.config.ts"));
  const child = spawn(
    process.execPath,
    [
      ...["--import", "tsx", "lib/agent/simulator/simulate.ts"],
      ...["--clusters", String(CLUSTERS)],
      ...["--interval", "2"],
      ...["--token", token.token],
      ...["--server", `https://127.0.0.1:${AGENT_PORT}`],
      ...["--ca-fingerprint", fleet.caFingerprint],
      ...["--duration", "150"],
      ...["--prefix", `e2e-ro-${run}`],
      ...["--key-pool", "2"],
    ],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (c) => (output += c));
  child.stderr?.on("data", (c) => (output += c));
  return Object.assign(child, { log: () => output });
}

test.describe("staged agent rollout", () => {
  test.use(asRole("operator"));

  test("an operator plans a canary-then-batch rollout and watches it complete stage by stage", async ({
    page,
    apiAs,
  }, testInfo) => {
    test.setTimeout(180_000);
    const run = Date.now().toString(36);
    const selector = `e2e-rollout=${run}`;
    const admin = await apiAs("admin");
    const simulator = await startSimulator(admin, testInfo, run);
    const exited = new Promise((resolve) => simulator.once("exit", resolve));
    try {
      // All simulated clusters registered, heartbeating (Active) and on an older agent.
      await expect
        .poll(
          async () => {
            if (simulator.exitCode !== null) throw new Error(`simulator exited ${simulator.exitCode}:\n${simulator.log()}`);
            const list = await json<{ items: { phase: string; status: string }[] }>(
              await admin.get(`/api/v1/clusters?${new URLSearchParams({ selector, limit: "10" })}`),
            );
            return list.items.filter((c) => c.phase === "Active" && c.status === "Ready").length;
          },
          { message: "simulated clusters Active and Ready", timeout: 60_000 },
        )
        .toBe(CLUSTERS);

      // Plan it.
      await page.goto("/rollouts/new");
      await page.getByLabel("Rollout name").fill(`e2e rollout ${run}`);
      const version = page.getByLabel("Target agent version");
      await expect(version).toHaveValue("1.4.0"); // this build's agent version (the recommended one) is suggested
      await version.fill("1.5.0");
      // The radios are visually hidden inside their labels (a segmented control): click the label.
      await page.locator("label", { hasText: "By label selector" }).click();
      await expect(page.getByRole("radio", { name: "By label selector" })).toBeChecked();
      await page.getByLabel("Label selector", { exact: true }).fill(selector);
      await expect(page.getByTestId("matched-clusters")).toContainText(`${CLUSTERS} clusters match now`);
      // The live preview: the canary takes one cluster, the last stage the rest.
      const stages = page.getByRole("list", { name: "Stages" });
      await expect(stages.getByRole("listitem").nth(0)).toContainText("1 cluster");
      await expect(stages.getByRole("listitem").nth(1)).toContainText(`${CLUSTERS - 1} clusters`);
      await expect(page.getByRole("img", { name: `Plan: canary 1 cluster, rest ${CLUSTERS - 1} clusters` })).toBeVisible();
      await page.getByLabel("Max unavailable").fill("3");
      await page.getByLabel("Soak time per stage (seconds)").fill("2");
      await page.getByLabel("Per-cluster timeout (seconds)").fill("90");
      await saveScreenshots(page, testInfo, "rollouts-new");
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByRole("button", { name: "Start rollout…" }).click();
      // The confirmation shows the plan's counts as the server computed them.
      const confirm = page.getByRole("dialog");
      await expect(confirm.getByTestId("plan-stages")).toHaveText("2 stages");
      await expect(confirm.getByTestId("plan-clusters")).toHaveText(`${CLUSTERS} clusters`);
      await confirm.getByRole("button", { name: "Start rollout", exact: true }).click();

      // Watch it: Running, the canary stage finishes first while the batch has not, then Completed.
      await expect(page).toHaveURL(/\/rollouts\/(?!new)[^/]+$/);
      await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
      await expect(page.getByRole("heading", { name: `e2e rollout ${run}` })).toContainText("Running");
      const canary = page.locator('li[data-stage="canary"]');
      const rest = page.locator('li[data-stage="rest"]');
      await expect(canary).toHaveAttribute("aria-current", "step");
      await expect(rest).toHaveAttribute("data-state", "waiting");
      await expect(canary).toHaveAttribute("data-state", "done", { timeout: 60_000 });
      expect(Number(await rest.getByTestId("stage-finished").innerText()), "the batch starts after the canary").toBeLessThan(
        CLUSTERS - 1,
      );
      await expect(page.getByRole("heading", { name: `e2e rollout ${run}` })).toContainText("Completed", { timeout: 90_000 });
      await expect(rest).toHaveAttribute("data-state", "done");
      await expect(page.getByTestId("rollout-succeeded-value")).toHaveText(String(CLUSTERS));
      await expect(page.getByTestId("rollout-failed-value")).toHaveText("0");
      const rows = page.getByRole("table", { name: "Clusters in this rollout by stage" }).locator("tbody tr");
      await expect(rows).toHaveCount(CLUSTERS);
      for (const r of await rows.all()) {
        await expect(r.getByText("Succeeded")).toBeVisible();
        await expect(r).toContainText("1.5.0");
      }
      // Nothing left to do on a finished rollout, and the page never reloaded.
      await expect(page.getByRole("button", { name: /Pause|Resume|Abort/ })).toHaveCount(0);
      expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
      await saveScreenshots(page, testInfo, "rollouts-detail");

      // The list shows it finished, with a full progress bar.
      await page.goto("/rollouts");
      const listed = page.locator(`tr[data-rollout="e2e rollout ${run}"]`);
      await expect(listed).toContainText("Completed");
      await expect(listed).toContainText(`${CLUSTERS} / ${CLUSTERS}`);
      await saveScreenshots(page, testInfo, "rollouts-list");

      // The agents really report the new version.
      const after = await json<{ items: { agentVersion: string }[] }>(
        await admin.get(`/api/v1/clusters?${new URLSearchParams({ selector, limit: "10" })}`),
      );
      expect(after.items.map((c) => c.agentVersion)).toEqual(Array(CLUSTERS).fill("1.5.0"));
    } finally {
      if (simulator.exitCode === null) {
        simulator.kill("SIGTERM");
        const timer = setTimeout(() => simulator.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
    }
  });

  test("a viewer sees rollouts but cannot plan or act on one", async ({ browser }) => {
    const context = await browser.newContext(asRole("viewer"));
    const page = await context.newPage();
    try {
      await page.goto("/rollouts");
      await expect(page.getByRole("heading", { name: "Rollouts" })).toBeVisible();
      await expect(page.getByRole("link", { name: /New rollout|Plan a rollout/ })).toHaveCount(0);
      const res = await page.goto("/rollouts/new");
      expect(res?.status()).toBe(403);
      const status = await page.evaluate(async () => {
        const r = await fetch("/api/v1/rollouts", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "x", targetVersion: "1.5.0", selector: "env=none" }),
        });
        return r.status;
      });
      expect(status).toBe(403);
    } finally {
      await context.close();
    }
  });
});
