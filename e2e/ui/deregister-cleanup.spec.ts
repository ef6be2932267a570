// The deregistration wizard's last step after removal: the in-cluster cleanup command stays, with a
// Copy button, and the page says what is left in the cluster until it runs, also after a reload
// (when the cluster record is gone). The cluster is driven by the test through the agent protocol,
// so the disconnect is acknowledged, or not, when the test says.
import type { APIRequestContext } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { enrolTestAgent, type TestAgent } from "../support/agent-api";
import { okJson } from "../support/agent-process";
import { execSql, sqlTimestamp } from "../support/database";
import { seriousAxeFindings } from "../support/axe";
import { savePhoneScreenshots, saveScreenshots } from "../support/screenshots";
import { AGENT_REMOVE_COMMAND } from "../../lib/domain/agent-kube-calls";

type Wizard = { step: string | null; disconnect: { acknowledged: boolean } | null };

async function act(admin: APIRequestContext, id: string, body: Record<string, unknown>): Promise<Wizard> {
  return okJson<Wizard>(await admin.post(`/api/v1/clusters/${id}/deregistration`, { data: body, headers: SAME_ORIGIN }));
}

/** A cluster of the test's own, Active, drained and told to disconnect (through the API). */
async function disconnecting(admin: APIRequestContext, playwright: Parameters<typeof enrolTestAgent>[0], name: string) {
  const token = await okJson<{ token: string }>(
    await admin.post("/api/v1/registration-tokens", {
      data: { name: `e2e ${name}`, ttlSeconds: 600, maxClusters: 1 },
      headers: SAME_ORIGIN,
    }),
  );
  const agent = await enrolTestAgent(playwright, token.token, name, { env: "e2e", region: "cleanup" });
  await expect
    .poll(
      async () => {
        await agent.heartbeat();
        return (await okJson<{ phase: string }>(await admin.get(`/api/v1/clusters/${agent.clusterId}`))).phase;
      },
      { message: `${name} Active`, timeout: 20_000 },
    )
    .toBe("Active");
  await act(admin, agent.clusterId, { action: "start", reason: "e2e: cleanup step" });
  // The test's agent reports no pods: the wait for zero is skipped with a reason.
  await act(admin, agent.clusterId, { action: "confirm-workloads", force: true, reason: "e2e: nothing runs there" });
  await act(admin, agent.clusterId, { action: "disconnect" });
  return agent;
}

test.describe("deregistration's in-cluster cleanup", () => {
  test.use(asRole("operator"));

  test("after removal the last step keeps the cleanup command, copyable, and what is left, across a reload", async ({
    page,
    context,
    playwright,
    apiAs,
  }, testInfo) => {
    test.setTimeout(90_000);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const admin = await apiAs("admin");
    const name = `e2e-cleanup-${Date.now().toString(36)}`;
    let agent: TestAgent | undefined;
    try {
      agent = await disconnecting(admin, playwright, name);
      // The agent takes the directive with one heartbeat and acknowledges it with the next.
      const a = agent;
      await expect
        .poll(
          async () => {
            await a.heartbeat();
            return (await okJson<Wizard>(await admin.get(`/api/v1/clusters/${a.clusterId}/deregistration`))).disconnect
              ?.acknowledged;
          },
          { message: "disconnect acknowledged", timeout: 20_000 },
        )
        .toBe(true);

      await page.goto(`/clusters/${agent.clusterId}/deregister`);
      await expect(page.getByRole("heading", { name: `Deregister ${name}` })).toBeVisible();
      await expect(page.getByTestId("cluster-cleanup")).toHaveCount(0);
      await page.getByRole("button", { name: "Remove cluster…" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByLabel(/Type .* to confirm/).fill(name);
      await dialog.getByLabel(/Reason/).fill("e2e: cleanup step");
      await dialog.getByRole("button", { name: "Remove cluster" }).click();
      await expect(page.getByText("All checks pass")).toBeVisible({ timeout: 20_000 });

      const expectCleanup = async () => {
        const cleanup = page.locator('li[data-step="verify"]').getByTestId("cluster-cleanup");
        await expect(cleanup).toBeVisible();
        await expect(cleanup).toHaveAttribute("data-agent-disconnected", "true");
        await expect(cleanup.getByRole("heading", { name: "Clean up the cluster" })).toBeVisible();
        await expect(cleanup.getByTestId("cluster-cleanup-command")).toHaveText(AGENT_REMOVE_COMMAND);
        const left = cleanup.getByRole("list", { name: "Left in the cluster" });
        await expect(left.locator("li[data-leftover]")).toHaveCount(5);
        await expect(left.locator('li[data-leftover="deployment"]')).toContainText("scaled to 0 replicas");
        await expect(left.locator('li[data-leftover="namespace"]')).toContainText("Namespace fleet-system");
        await expect(left.locator('li[data-leftover="service-account"]')).toContainText(
          "ServiceAccount fleet-system/fleet-agent",
        );
        await expect(left.locator('li[data-leftover="rbac"]')).toContainText("ClusterRoles");
        await expect(left.locator('li[data-leftover="secrets"]')).toContainText("tombstone");
        return cleanup;
      };
      let cleanup = await expectCleanup();
      await cleanup.getByRole("button", { name: "Copy command" }).click();
      await expect(cleanup.getByRole("button", { name: "Copied" })).toBeVisible();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(AGENT_REMOVE_COMMAND);

      // The cluster record is gone; the page is drawn again from the wizard's record alone.
      const gone = await admin.get(`/api/v1/clusters/${agent.clusterId}`);
      expect(gone.status()).toBe(404);
      await page.reload();
      await expect(page.getByRole("heading", { name: `Deregister ${name}` })).toBeVisible();
      cleanup = await expectCleanup();
      await page.evaluate(() => navigator.clipboard.writeText(""));
      // Keyboard: the command is focusable (it may overflow on a phone), then the button copies.
      await cleanup.getByTestId("cluster-cleanup-command").focus();
      await page.keyboard.press("Tab");
      await expect(cleanup.getByRole("button", { name: "Copy command" })).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(cleanup.getByRole("button", { name: "Copied" })).toBeVisible();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(AGENT_REMOVE_COMMAND);
      expect(await seriousAxeFindings(page)).toEqual([]);
      await saveScreenshots(page, testInfo, "deregister-cleanup");

      // On a phone the command wraps inside the screen and the button stays reachable.
      await page.setViewportSize({ width: 390, height: 844 });
      const command = cleanup.getByTestId("cluster-cleanup-command");
      await command.scrollIntoViewIfNeeded();
      const box = await command.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390, `command box ${JSON.stringify(box)}`).toBe(true);
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
      await cleanup.getByRole("button", { name: "Copy command" }).scrollIntoViewIfNeeded();
      await expect(cleanup.getByRole("button", { name: "Copy command" })).toBeInViewport();
      await savePhoneScreenshots(page, testInfo, "deregister-cleanup-phone");
    } finally {
      await agent?.dispose();
    }
  });

  test("after a forced removal it says the agent may still run and still holds its key", async ({
    page,
    playwright,
    apiAs,
  }, testInfo) => {
    test.setTimeout(90_000);
    const admin = await apiAs("admin");
    const name = `e2e-cleanup-forced-${Date.now().toString(36)}`;
    let agent: TestAgent | undefined;
    try {
      // The agent never takes the directive: the test stops heartbeating once it was sent, and the
      // directive is aged past the disconnect timeout instead of waiting for it.
      agent = await disconnecting(admin, playwright, name);
      const old = sqlTimestamp(new Date(Date.now() - 24 * 3600_000));
      await execSql(`UPDATE "Directive" SET "createdAt" = ? WHERE "clusterId" = ? AND "type" = 'disconnect'`, [
        old,
        agent.clusterId,
      ]);
      const removed = await act(admin, agent.clusterId, { action: "remove", force: true, reason: "e2e: agent unreachable" });
      expect(removed.step).toBe("removed");

      await page.goto(`/clusters/${agent.clusterId}/deregister`);
      const cleanup = page.getByTestId("cluster-cleanup");
      await expect(cleanup).toHaveAttribute("data-agent-disconnected", "false");
      await expect(cleanup).toContainText("never acknowledged the disconnect");
      await expect(cleanup.locator('li[data-leftover="deployment"]')).toContainText("may still be running");
      await expect(cleanup.locator('li[data-leftover="secrets"]')).toContainText("private key");
      await expect(cleanup.locator('li[data-leftover="rbac"]')).toContainText("ClusterRoleBindings");
      await expect(cleanup.getByTestId("cluster-cleanup-command")).toHaveText(AGENT_REMOVE_COMMAND);
      await saveScreenshots(page, testInfo, "deregister-cleanup-forced");
      await page.setViewportSize({ width: 390, height: 844 });
      await cleanup.scrollIntoViewIfNeeded();
      await savePhoneScreenshots(page, testInfo, "deregister-cleanup-forced-phone");
    } finally {
      await agent?.dispose();
    }
  });
});
