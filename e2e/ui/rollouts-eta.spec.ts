// A new rollout says, before it starts, how many clusters it will upgrade and about how long that
// takes, and the form and its start confirmation say the same: one cluster already on the target
// version and one NotReady are in the selection but not upgraded, in both places. The clusters are
// the test's own, driven through the agent protocol.
import type { Response } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { enrolTestAgent, type TestAgent } from "../support/agent-api";
import { okJson } from "../support/agent-process";
import { seriousAxeFindings } from "../support/axe";
import { savePhoneScreenshots, saveScreenshots } from "../support/screenshots";
import { estimateRollout } from "../../lib/domain/rollout-eta";
import { formatDuration } from "../../lib/domain/time-format";

type Plan = {
  planned: number;
  alreadyOnTarget: number;
  stages: { name: string; clusters: number; upgrades: number }[];
  heartbeatIntervalSeconds: number;
};

const isPlan = (r: Response) => r.url().endsWith("/api/v1/rollouts/plan") && r.request().method() === "POST";

test.describe("rollout plan before the start", () => {
  test.use(asRole("operator"));

  test("the form and the confirmation count the same clusters to upgrade and state the ETA before start", async ({
    page,
    playwright,
    apiAs,
  }, testInfo) => {
    test.setTimeout(120_000);
    const run = Date.now().toString(36);
    const admin = await apiAs("admin");
    const token = await okJson<{ token: string }>(
      await admin.post("/api/v1/registration-tokens", {
        data: { name: `e2e eta ${run}`, ttlSeconds: 600, maxClusters: 5, fixedLabels: { "e2e-eta": run } },
        headers: SAME_ORIGIN,
      }),
    );
    const agents: TestAgent[] = [];
    let beating: ReturnType<typeof setInterval> | undefined;
    try {
      for (const n of ["a", "b", "c", "d-current", "e-dead"])
        agents.push(await enrolTestAgent(playwright, token.token, `e2e-eta-${run}-${n}`, { env: "dev", region: "eu" }));
      const [a, b, c, current, dead] = agents as [TestAgent, TestAgent, TestAgent, TestAgent, TestAgent];
      // Three on 1.4.0, one already on the target 1.5.0, one reporting its API server down (NotReady).
      const beat = async () => {
        await Promise.all([a.heartbeat(), b.heartbeat(), c.heartbeat(), current.heartbeat({ agentVersion: "1.5.0" })]);
        await dead.heartbeat({ apiServer: "down" });
      };
      await expect
        .poll(
          async () => {
            await beat();
            const list = await okJson<{ items: { phase: string; status: string }[] }>(
              await admin.get(`/api/v1/clusters?${new URLSearchParams({ selector: `e2e-eta=${run}` })}`),
            );
            // (the NotReady one never became Active: it stays in Registration, which the plan skips the same)
            return list.items.map((x) => (x.status === "Ready" ? `${x.phase}/Ready` : x.status)).sort();
          },
          { message: "four Ready and Active, one NotReady", timeout: 30_000 },
        )
        .toEqual(["Active/Ready", "Active/Ready", "Active/Ready", "Active/Ready", "NotReady"]);
      // They keep heartbeating while the test looks at the plan (so none goes NotReady meanwhile).
      beating = setInterval(() => void beat().catch(() => undefined), 5_000);

      await page.goto(`/rollouts/new?clusters=${agents.map((x) => x.clusterId).join(",")}`);
      await expect(page.getByRole("radio", { name: "These 5 clusters" })).toBeChecked({ timeout: 30_000 });
      await page.getByLabel("Rollout name").fill(`e2e eta ${run}`);
      await page.getByLabel("Target agent version").fill("1.5.0");
      await page.getByLabel("Max unavailable").fill("2");
      await page.getByLabel("Soak time per stage (seconds)").fill("30");

      // The form: five chosen, three to upgrade (one already on 1.5.0, one NotReady), and the ETA.
      const form = page.getByTestId("form-plan");
      await expect(page.getByTestId("matched-clusters")).toContainText("5 clusters match now");
      await expect(form.getByTestId("plan-upgrades")).toHaveText("3 clusters will be upgraded", { timeout: 20_000 });
      await expect(form).toContainText("1 cluster already on it, 1 cluster skipped");
      await expect(form.getByTestId("plan-eta")).toHaveText(/^About \d/);
      // The plan of what the form shows now, not the one before the last change (shown dimmed meanwhile).
      await expect(form).toHaveAttribute("aria-busy", "false");
      const formEta = await form.getByTestId("plan-eta").innerText();

      // The confirmation counts with the same function from the plan the server makes at the click.
      const planned = page.waitForResponse(isPlan);
      await page.getByRole("button", { name: "Start rollout…" }).click();
      const plan = (await (await planned).json()) as Plan;
      const confirm = page.getByRole("dialog");
      await expect(confirm.getByTestId("plan-upgrades")).toHaveText("3 clusters will be upgraded");
      await expect(confirm.getByTestId("plan-clusters")).toHaveText("4 clusters");
      await expect(confirm.getByTestId("plan-skipped")).toHaveText("1 cluster skipped");
      expect(plan.planned - plan.alreadyOnTarget).toBe(3);
      // canary: 1 to upgrade; rest: 3 clusters, 2 to upgrade, 2 at a time; 30 s between them.
      expect(plan.stages.map((s) => s.upgrades)).toEqual([1, 2]);
      const eta = estimateRollout({
        stages: plan.stages,
        maxUnavailable: 2,
        waitSeconds: 30,
        heartbeatIntervalSeconds: plan.heartbeatIntervalSeconds,
      });
      expect(eta.batches).toBe(2);
      const expected = `About ${formatDuration(eta.seconds * 1000)}`;
      await expect(confirm.getByTestId("plan-eta")).toHaveText(expected);
      expect(formEta, "the form said the same before the click").toBe(expected);
      await expect(confirm).toContainText(`two ${plan.heartbeatIntervalSeconds} s heartbeats`);
      expect(await seriousAxeFindings(page)).toEqual([]);
      await saveScreenshots(page, testInfo, "rollout-eta-confirm");
      await savePhoneScreenshots(page, testInfo, "rollout-eta-confirm-phone", { fullPage: false });
      await page.setViewportSize({ width: 1280, height: 800 });
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await expect(confirm).toHaveCount(0);

      // Nothing started: the ETA was stated before any rollout existed.
      const rollouts = await okJson<{ items: { name: string }[] }>(await admin.get("/api/v1/rollouts"));
      expect(rollouts.items.some((r) => r.name === `e2e eta ${run}`)).toBe(false);

      // One at a time takes longer, and the form says so before the click, as the dialog then does.
      await page.getByLabel("Max unavailable").fill("1");
      const slower = `About ${formatDuration(
        estimateRollout({
          stages: plan.stages,
          maxUnavailable: 1,
          waitSeconds: 30,
          heartbeatIntervalSeconds: plan.heartbeatIntervalSeconds,
        }).seconds * 1000,
      )}`;
      await expect(form.getByTestId("plan-eta")).toHaveText(slower, { timeout: 20_000 });
      await expect(form.getByTestId("plan-upgrades")).toHaveText("3 clusters will be upgraded");
      await page.getByRole("button", { name: "Start rollout…" }).click();
      await expect(confirm.getByTestId("plan-eta")).toHaveText(slower);
      await expect(confirm.getByTestId("plan-upgrades")).toHaveText("3 clusters will be upgraded");

      // On a phone the plan card states the same before the start.
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await page.setViewportSize({ width: 390, height: 844 });
      await form.scrollIntoViewIfNeeded();
      await expect(form.getByTestId("plan-upgrades")).toBeInViewport();
      await expect(form.getByTestId("plan-eta")).toHaveText(slower);
      await savePhoneScreenshots(page, testInfo, "rollout-eta-form-phone", { fullPage: false });
      await page.setViewportSize({ width: 1440, height: 900 });
      await saveScreenshots(page, testInfo, "rollout-eta-form");
    } finally {
      if (beating) clearInterval(beating);
      for (const x of agents) await x.dispose();
    }
  });
});
