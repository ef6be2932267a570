// Safe rollouts in the browser: the start confirmation shows the plan's counts (a NotReady cluster
// left out and listed), approval between stages, and upgrade windows set on the Groups page. The
// clusters are driven by the test itself through the agent protocol (register, heartbeat,
// perform the upgrade directive), so each step happens when the test says.
import type { APIRequestContext } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { GroupsPage } from "../pages/groups-page";
import { enrolTestAgent, type TestAgent } from "../support/agent-api";
import { execSql, sqlTimestamp } from "../support/database";
import { saveScreenshots } from "../support/screenshots";

/** The Versions page's flagged list shows this many clusters at a time (lib/client/versions.ts). */
const FLAGGED_PAGE = 100;

async function json<T>(res: Awaited<ReturnType<APIRequestContext["get"]>>): Promise<T> {
  expect(res.ok(), `${res.url()} -> ${res.status()} ${await res.text()}`).toBeTruthy();
  return (await res.json()) as T;
}

type RolloutBody = { state: string; currentStage: number; clusters: { clusterId: string; state: string }[] };

test.describe("safe rollouts", () => {
  test.use(asRole("operator"));

  test("the start asks for confirmation with the plan's counts; the next stage waits for approval; a cluster dead at its turn is skipped", async ({
    page,
    playwright,
    apiAs,
  }, testInfo) => {
    test.setTimeout(90_000);
    const run = Date.now().toString(36);
    const admin = await apiAs("admin");
    const token = await json<{ token: string }>(
      await admin.post("/api/v1/registration-tokens", {
        data: { name: `e2e safe ${run}`, ttlSeconds: 600, maxClusters: 4, fixedLabels: { "e2e-safe": run } },
        headers: SAME_ORIGIN,
      }),
    );
    const agents: TestAgent[] = [];
    try {
      for (const n of ["a-canary", "b-late", "b-rest", "c-dead"])
        agents.push(await enrolTestAgent(playwright, token.token, `e2e-safe-${run}-${n}`, { env: "dev", region: "eu" }));
      const [canary, late, rest, dead] = agents as [TestAgent, TestAgent, TestAgent, TestAgent];
      // Three healthy clusters become Active (one of them dies later, before its turn); the fourth
      // reports its API server down: NotReady.
      await expect
        .poll(
          async () => {
            await canary.heartbeat();
            await late.heartbeat();
            await rest.heartbeat();
            await dead.heartbeat({ apiServer: "down" });
            const list = await json<{ items: { phase: string }[] }>(
              await admin.get(`/api/v1/clusters?${new URLSearchParams({ selector: `e2e-safe=${run}` })}`),
            );
            return list.items.filter((c) => c.phase === "Active").length;
          },
          { message: "three clusters Active", timeout: 20_000 },
        )
        .toBe(3);

      // Opened prefilled with the four clusters (as Versions' "upgrade these" and the cluster list do).
      await page.goto(`/rollouts/new?clusters=${agents.map((a) => a.clusterId).join(",")}`);
      // (the form waits for the version matrix; generous on a busy CI machine)
      await expect(page.getByRole("radio", { name: "These 4 clusters" })).toBeChecked({ timeout: 30_000 });
      await page.getByLabel("Rollout name").fill(`e2e safe ${run}`);
      // The form suggests this build's agent version, which the test agents already run.
      await page.getByLabel("Target agent version").fill("1.5.0");
      await page.getByLabel("Soak time per stage (seconds)").fill("0");
      await page.getByLabel("Max unavailable").fill("2");
      await page.getByLabel("Require approval before each next stage").check();
      await page.getByRole("button", { name: "Start rollout…" }).click();

      const confirm = page.getByRole("dialog");
      await expect(confirm.getByTestId("plan-stages")).toHaveText("2 stages");
      await expect(confirm.getByTestId("plan-clusters")).toHaveText("3 clusters");
      await expect(confirm.getByTestId("plan-skipped")).toHaveText("1 cluster skipped");
      await expect(confirm).toContainText(`${dead.name} — NotReady`);
      await saveScreenshots(page, testInfo, "rollout-confirm");
      // Cancel keeps the form as it was; nothing started.
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await expect(confirm).toHaveCount(0);
      // Including NotReady clusters is an explicit choice: the plan then counts the dead one in.
      const include = page.getByLabel("Include NotReady and draining clusters");
      await include.check();
      await page.getByRole("button", { name: "Start rollout…" }).click();
      await expect(confirm.getByTestId("plan-clusters")).toHaveText("4 clusters");
      await expect(confirm.getByTestId("plan-skipped")).toHaveText("0 clusters skipped");
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await include.uncheck();
      await page.getByRole("button", { name: "Start rollout…" }).click();
      await expect(confirm.getByTestId("plan-skipped")).toHaveText("1 cluster skipped");
      await confirm.getByRole("button", { name: "Start rollout", exact: true }).click();
      await expect(page).toHaveURL(/\/rollouts\/(?!new)[^/]+$/);
      const id = page.url().split("/").pop()!;

      const rows = page.getByRole("table", { name: "Clusters in this rollout by stage" });
      await expect(rows.locator("tr", { hasText: dead.name })).toContainText("not planned");
      await expect(rows.locator("tr", { hasText: dead.name })).toContainText("NotReady when planned");

      // The canary picks up its upgrade and comes back on 1.5.0; then the rollout waits for approval.
      let version = "1.4.0";
      await expect
        .poll(
          async () => {
            const directives = await canary.heartbeat({ agentVersion: version });
            if (directives.some((d) => d.type === "upgrade")) version = "1.5.0";
            await rest.heartbeat();
            return (await json<RolloutBody>(await admin.get(`/api/v1/rollouts/${id}`))).state;
          },
          { message: "awaiting approval after the canary", timeout: 30_000 },
        )
        .toBe("AwaitingApproval");
      await expect(page.getByTestId("awaiting-approval")).toContainText("starts when you approve it", { timeout: 20_000 });
      await expect(page.getByRole("heading", { level: 1, name: `e2e safe ${run}` })).toContainText("Awaiting approval");
      await expect(page.getByTestId("rollout-eta")).toContainText("per cluster");
      await saveScreenshots(page, testInfo, "rollout-awaiting-approval");
      const member = async (agent: TestAgent) =>
        (await json<RolloutBody>(await admin.get(`/api/v1/rollouts/${id}`))).clusters.find(
          (c) => c.clusterId === agent.clusterId,
        );
      expect((await member(rest))?.state, "nothing starts before the approval").toBe("Pending");
      // One planned cluster dies while the rollout waits (no heartbeat for 16 minutes).
      const heard = sqlTimestamp(new Date(Date.now() - 16 * 60_000));
      await execSql(`UPDATE "Cluster" SET "lastHeartbeatAt" = ?, "status" = 'NotReady', "statusChangedAt" = ? WHERE "id" = ?`, [
        heard,
        heard,
        late.clusterId,
      ]);

      // Approval shows the canary stage's evidence first: each cluster's status, version and Ready since.
      await page.getByRole("button", { name: "Approve stage rest…" }).click();
      const approve = page.getByRole("dialog", { name: "Approve stage rest?" });
      const evidence = approve.getByTestId("stage-evidence").locator("tr", { hasText: canary.name });
      await expect(evidence).toContainText("Ready");
      await expect(evidence).toContainText("1.5.0");
      await expect(approve.getByTestId("approval-refused")).toHaveCount(0);
      await saveScreenshots(page, testInfo, "rollout-approve-stage");
      await approve.getByRole("button", { name: "Approve stage rest", exact: true }).click();
      await expect(page.getByRole("heading", { level: 1, name: `e2e safe ${run}` })).toContainText("Running");
      // The dead one is skipped at its turn, not started (it would hold the stage until its timeout).
      await expect.poll(async () => (await member(late))?.state, { timeout: 20_000 }).toBe("Skipped");
      expect((await member(rest))?.state).toBe("Upgrading");
      await expect(rows.locator("tr", { hasText: late.name })).toContainText("NotReady when its turn came");
      const audit = await json<{ items: { action: string; actor: string }[] }>(
        await admin.get(`/api/v1/audit?target=${id}&limit=10`),
      );
      expect(audit.items.find((e) => e.action === "rollout.approve")?.actor).toBe("operator@fleet.test");

      // A quick look on a phone: the rollout's state and its actions stay on screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await expect(page.getByRole("heading", { level: 1 })).toContainText("Running");
      await expect(page.getByRole("button", { name: "Abort…" })).toBeInViewport();
      const aborted = await admin.post(`/api/v1/rollouts/${id}/actions`, {
        data: { action: "abort", reason: "e2e done" },
        headers: SAME_ORIGIN,
      });
      expect(aborted.status()).toBe(200);
    } finally {
      for (const a of agents) await a.dispose();
    }
  });

  test("an upgrade window set on the Groups page, in a named time zone, validated", async ({ page }) => {
    const groups = new GroupsPage(page);
    const name = `win-${Date.now().toString(36)}`;
    await groups.goto();
    await groups.newGroup.click();
    await groups.field("Name").fill(name);
    await groups.field("Label selector").fill("env=dev");
    await groups.dialog.getByRole("button", { name: "Add window" }).click();
    const window = groups.dialog.getByTestId("upgrade-window");
    await window.getByRole("group", { name: "Window 1 days" }).getByText("Sun").click();
    await window.getByLabel("Window 1 start").fill("01:30");
    await window.getByLabel("Window 1 end").fill("05:00");
    await groups.field("Time zone (IANA)").fill("Mars/Olympus");
    await groups.dialog.getByRole("button", { name: "Create group" }).click();
    await expect(groups.dialog).toContainText("not an IANA time zone");
    await groups.field("Time zone (IANA)").fill("Europe/Berlin");
    await groups.dialog.getByRole("button", { name: "Create group" }).click();
    await expect(groups.dialog).toHaveCount(0);
    await expect(groups.row(name).getByTestId("group-windows")).toHaveText("Sat, Sun 01:30-05:00 (Europe/Berlin)");

    // On a phone the dialog and its window editor fit the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await groups
      .row(name)
      .getByRole("button", { name: `Edit ${name}` })
      .click();
    await expect(groups.dialog.getByTestId("upgrade-window")).toBeVisible();
    const box = await groups.dialog.boundingBox();
    expect(box && box.width <= 390, `dialog ${box?.width}px wide`).toBe(true);
    await groups.dialog.getByRole("button", { name: "Remove window 1" }).click();
    await groups.dialog.getByRole("button", { name: "Save changes" }).click();
    await expect(groups.row(name).getByTestId("group-windows")).toHaveText("any time");
  });

  test('Versions\' "upgrade these" opens a new rollout prefilled with the flagged clusters', async ({
    page,
    playwright,
    apiAs,
  }) => {
    const admin = await apiAs("admin");
    const run = Date.now().toString(36);
    const token = await json<{ token: string }>(
      await admin.post("/api/v1/registration-tokens", {
        data: { name: `e2e upgrade-these ${run}`, ttlSeconds: 600, maxClusters: 1 },
        headers: SAME_ORIGIN,
      }),
    );
    const agent = await enrolTestAgent(playwright, token.token, `e2e-these-${run}`, { env: "dev", region: "eu" });
    await agent.dispose(); // registered on agent 1.4.0: outdated
    // More outdated clusters than a page holds: the flagged list pages instead of stopping short.
    const now = sqlTimestamp();
    const ids = Array.from({ length: FLAGGED_PAGE }, (_, i) => `cl_e2eflag${run}${String(i).padStart(3, "0")}`);
    await execSql(
      `INSERT INTO "Cluster" ("id", "name", "phase", "registeredAt", "agentVersion", "kubernetesVersion", "createdAt", "updatedAt") VALUES ${ids.map(() => "(?, ?, 'Active', ?, '1.2.3', '1.29.4', ?, ?)").join(", ")}`,
      ids.flatMap((id, i) => [id, `flagged-${run}-${String(i).padStart(3, "0")}`, now, now, now]),
    );
    // The fleet-wide count of outdated clusters moves while other specs run (they register clusters
    // on old agents and upgrade others): this spec counts on its own clusters only, a lower bound
    // of at least one more than a page, and never compares two reads of the fleet-wide count.
    const own = FLAGGED_PAGE + 1;
    const countIn = (text: string, pattern: RegExp) => Number(text.match(pattern)?.[1]?.replace(/,/g, ""));
    await page.goto("/versions");
    await page.getByRole("button", { name: /^Outdated/ }).click();
    const link = page.getByRole("link", { name: /^Upgrade these [\d,]+/ });
    expect(countIn(await link.innerText(), /([\d,]+)/)).toBeGreaterThanOrEqual(own);
    const flaggedRows = page.getByRole("table", { name: "Clusters whose versions are flagged" }).locator("tbody tr");
    await expect(flaggedRows).toHaveCount(FLAGGED_PAGE);
    const shown = page.getByTestId("flagged-shown");
    await expect(shown).toHaveText(new RegExp(`^Showing ${FLAGGED_PAGE} of [\\d,]+$`));
    expect(countIn(await shown.innerText(), /of ([\d,]+)/)).toBeGreaterThanOrEqual(own);
    await page.getByRole("button", { name: /^Show \d+ more$/ }).click();
    // At least this spec's own clusters past the first page; never more than two pages.
    await expect.poll(() => flaggedRows.count()).toBeGreaterThan(FLAGGED_PAGE);
    expect(await flaggedRows.count()).toBeLessThanOrEqual(2 * FLAGGED_PAGE);
    await link.click();
    await expect(page).toHaveURL(/\/rollouts\/new\?flagged=outdated$/);
    const these = page.getByRole("radio", { name: /^These [\d,]+ clusters?$/ });
    await expect(these).toBeChecked({ timeout: 30_000 });
    const matched = countIn(await page.getByTestId("matched-clusters").innerText(), /([\d,]+) clusters? match/);
    expect(matched, "every flagged cluster is in the rollout, this spec's own among them").toBeGreaterThanOrEqual(own);
  });
});
