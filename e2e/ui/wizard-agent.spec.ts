// The drain-then-deregister wizard in the browser against a real reference agent process: start
// the drain, watch the agent's pods fall to zero, confirm, disconnect (the agent acknowledges and
// exits 0), remove, and see every verification check pass. Afterwards the agent's certificate,
// read from its state dir before it deleted it, is refused on the agent port with 410.
import type { Locator, Page } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { AGENT_PORT } from "../support/run";
import { AgentProcess, okJson, uniqueName, type AgentIdentity } from "../support/agent-process";
import { saveScreenshots } from "../support/screenshots";
import { call, heartbeatBody } from "../../tests/helpers/agent-client";

// ---------------------------------------------------------------------------------------------
// Helpers (the agent process is e2e/support/agent-process.ts).

/** A heartbeat on the agent port with a client certificate, the way the agent sends it. */
function heartbeatWith(identity: AgentIdentity): Promise<{ status: number; body: { error?: string; message?: string } }> {
  return call(`https://127.0.0.1:${AGENT_PORT}/api/agent/v1/heartbeat`, "POST", {
    body: heartbeatBody({ nodePools: [] }),
    ca: identity.ca,
    client: { cert: identity.cert, key: identity.key },
  });
}

function step(page: Page, key: "drain" | "workloads" | "disconnect" | "remove" | "verify"): Locator {
  return page.locator(`li[data-step="${key}"]`);
}

// ---------------------------------------------------------------------------------------------

test.describe("drain-then-deregister wizard", () => {
  test.use(asRole("operator"));

  test("takes a live cluster with a real agent from Active to verified-gone", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(180_000);
    const admin = await apiAs("admin");
    // The agent heartbeats every 2 s by its own flag: the fleet's interval is left alone.
    const agent = await AgentProcess.start(admin, testInfo, uniqueName("e2e-wizard"), {
      labels: "env=e2e,region=wizard",
      logLevel: "info",
    });
    try {
      const id = await agent.clusterId(admin, { reportingPods: true });
      const identity = agent.identity();

      await page.goto(`/clusters/${id}/deregister`);
      await expect(page.getByRole("heading", { name: `Deregister ${agent.name}` })).toBeVisible();
      await expect(step(page, "drain")).toHaveAttribute("aria-current", "step");

      // 1. Start the drain (a confirmation first: it is disruptive).
      await page.getByRole("button", { name: "Start drain…" }).click();
      const startDialog = page.getByRole("dialog", { name: `Start draining ${agent.name}?` });
      await startDialog.getByLabel(/Reason/).fill("e2e: retiring the cluster");
      await startDialog.getByRole("button", { name: "Start drain" }).click();
      await expect(startDialog).toBeHidden();

      // 2. Waiting for the workloads: the agent's pods fall to zero on the live chart.
      await expect(step(page, "workloads")).toHaveAttribute("aria-current", "step");
      await expect(page.getByTestId("waiting-for")).toContainText(/Workloads|0 pods/);
      await expect(page.getByTestId("pods-at-start")).not.toHaveText("0");
      await expect(page.getByTestId("pods-now")).toHaveText("0", { timeout: 60_000 });
      const chart = page.getByRole("figure", { name: "Pods reported by the agent since the drain started" });
      await expect(chart).toHaveAccessibleDescription(/→ 0/);
      // The curve is the server's record of the drain, not what this page happened to see: after
      // a reload it still starts at the pods the agent had and falls to zero.
      await page.reload();
      await expect(chart).toHaveAccessibleDescription(/: [1-9]\d* → 0/, { timeout: 20_000 });
      await expect(page.getByTestId("waiting-for")).toContainText("confirm to continue");
      await saveScreenshots(page, testInfo, "wizard-workloads-moved");
      await page.getByRole("button", { name: "Continue", exact: true }).click();

      // 3. Disconnect: the agent acknowledges with its next heartbeat, deletes its state and exits 0.
      await expect(step(page, "disconnect")).toHaveAttribute("aria-current", "step");
      await page.getByRole("button", { name: "Disconnect agent…" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Disconnect agent" }).click();
      await expect(page.getByTestId("disconnect-acknowledged")).toBeVisible({ timeout: 30_000 });
      await expect(step(page, "remove")).toHaveAttribute("aria-current", "step");
      const code = await Promise.race([agent.exit, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 20_000))]);
      expect(code, `agent exit code; its log:\n${agent.log}`).toBe(0);
      expect(agent.stateDirGone(), "the agent deleted its state").toBe(true);

      // 4. Remove, then 5. every verification check passes.
      await page.getByRole("button", { name: "Remove cluster…" }).click();
      const removeDialog = page.getByRole("dialog");
      await removeDialog.getByLabel(/Type .* to confirm/).fill(agent.name);
      await removeDialog.getByLabel(/Reason/).fill("e2e: verified gone");
      await removeDialog.getByRole("button", { name: "Remove cluster" }).click();
      await expect(page.getByText("All checks pass")).toBeVisible({ timeout: 20_000 });
      const checks = page.getByRole("list", { name: "Verification checks" }).getByRole("listitem");
      await expect(checks).toHaveCount(5);
      await expect(checks.and(page.locator('[data-ok="false"]'))).toHaveCount(0);
      for (const key of ["record-removed", "certificates-refused", "no-heartbeat-accepted", "nothing-left", "tombstone"]) {
        await expect(page.locator(`li[data-check="${key}"]`)).toHaveAttribute("data-ok", "true");
      }
      await expect(step(page, "verify")).toHaveAttribute("data-state", "done");
      // No action is left to take on a removed cluster.
      await expect(page.getByRole("button", { name: /Cancel deregistration|Remove cluster|Start drain/ })).toHaveCount(0);
      await saveScreenshots(page, testInfo, "wizard-verified");

      // The certificate the agent had is refused for good.
      const refused = await heartbeatWith(identity);
      expect(refused.status, JSON.stringify(refused.body)).toBe(410);
      expect(refused.body.error).toBe("cluster_deregistered");

      // The wizard still answers for the removed cluster (a tombstone, not a 404).
      const after = await okJson<{ step: string; verification: { passed: boolean } }>(
        await admin.get(`/api/v1/clusters/${id}/deregistration`),
      );
      expect(after.step).toBe("removed");
      expect(after.verification.passed).toBe(true);
    } finally {
      await agent.stop();
    }
  });

  test("a viewer follows the wizard read-only and the API refuses the viewer's actions", async ({ browser, apiAs }) => {
    const admin = await apiAs("admin");
    // A pre-created (Provisioning) cluster is enough to look at: no agent needed.
    const name = `e2e-wizard-ro-${Date.now().toString(36)}`;
    const created = await admin.post("/api/v1/clusters", {
      data: { name, labels: { env: "e2e", region: "wizard" } },
      headers: SAME_ORIGIN,
    });
    expect(created.status(), await created.text()).toBe(201);
    const { id } = (await created.json()) as { id: string };

    const context = await browser.newContext(asRole("viewer"));
    const page = await context.newPage();
    try {
      await page.goto(`/clusters/${id}/deregister`);
      await expect(page.getByRole("heading", { name: `Deregister ${name}` })).toBeVisible();
      await expect(page.getByText("acting on it needs the operator role")).toBeVisible();
      await expect(page.getByRole("button", { name: /Start drain|Cancel deregistration/ })).toHaveCount(0);
      const status = await page.evaluate(async (url) => {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ action: "start" }),
        });
        return res.status;
      }, `/api/v1/clusters/${id}/deregistration`);
      expect(status).toBe(403);
    } finally {
      await context.close();
    }
  });
});
