// Every page of the signed-in console over a small live fleet, for the specs that check all of
// them (accessibility, phone layout): three simulated clusters heartbeating, a group, a rollout.
import type { Page, PlaywrightWorkerArgs, TestInfo } from "@playwright/test";
import { BASE_URL, SAME_ORIGIN, expect } from "../fixtures";
import { okJson } from "./agent-process";
import { authFile } from "./run";
import { startSimulator, stopSimulator, waitForReadyClusters, type Simulator } from "./simulator";

const CLUSTERS = 3;

export type SeededFleet = { clusterId: string; rolloutId: string; group: string; simulator: Simulator };

/** Registers three simulated clusters (left running), a group selecting them and a rollout over them. */
export async function seedFleet(
  playwright: PlaywrightWorkerArgs["playwright"],
  testInfo: TestInfo,
  prefix: string,
): Promise<SeededFleet> {
  const run = `${prefix}-${Date.now().toString(36)}`;
  const selector = `e2e-pages=${run}`;
  const admin = await playwright.request.newContext({ baseURL: BASE_URL, storageState: authFile("admin") });
  try {
    const simulator = await startSimulator(admin, testInfo, {
      clusters: CLUSTERS,
      label: ["e2e-pages", run],
      prefix: `e2e-${run}`,
      durationSeconds: 240,
    });
    const clusters = await waitForReadyClusters(admin, simulator, selector, CLUSTERS);
    await okJson(await admin.post("/api/v1/groups", { data: { name: `e2e-${run}`, selector }, headers: SAME_ORIGIN }));
    const rollout = await okJson<{ id: string }>(
      await admin.post("/api/v1/rollouts", {
        data: { name: `e2e ${run}`, targetVersion: "1.5.0", selector, waitSeconds: 0 },
        headers: SAME_ORIGIN,
      }),
    );
    return { clusterId: clusters[0]!.id, rolloutId: rollout.id, group: `e2e-${run}`, simulator };
  } finally {
    await admin.dispose();
  }
}

export async function stopFleet(fleet: SeededFleet | undefined): Promise<void> {
  if (fleet) await stopSimulator(fleet.simulator);
}

/** The console's pages, each with its own URL (detail pages of the seeded cluster and rollout). */
export function consolePages(fleet: Pick<SeededFleet, "clusterId" | "rolloutId" | "group">): { name: string; path: string }[] {
  return [
    { name: "overview", path: "/" },
    { name: "clusters", path: "/clusters" },
    { name: "cluster detail", path: `/clusters/${fleet.clusterId}` },
    { name: "deregister wizard", path: `/clusters/${fleet.clusterId}/deregister` },
    { name: "tokens", path: "/tokens" },
    { name: "approvals", path: "/registration-requests" },
    { name: "cluster api", path: "/cluster-api" },
    { name: "groups", path: "/groups" },
    { name: "group gate", path: `/groups/${fleet.group}/gate` },
    { name: "versions", path: "/versions" },
    { name: "node pools", path: "/node-pools" },
    { name: "policies", path: "/policies" },
    { name: "rollouts", path: "/rollouts" },
    { name: "new rollout", path: "/rollouts/new" },
    { name: "rollout detail", path: `/rollouts/${fleet.rolloutId}` },
    { name: "teams", path: "/teams" },
    { name: "webhooks", path: "/webhooks" },
    { name: "settings", path: "/settings" },
    { name: "audit", path: "/audit" },
    { name: "your access", path: "/access" },
  ];
}

/** Opens a console page and waits for its content: the heading shown and every skeleton gone. */
export async function openConsolePage(page: Page, path: string): Promise<void> {
  const res = await page.goto(path);
  expect(res?.status(), `${path} answers`).toBeLessThan(400);
  // Generous: the charts load after the numbers, and CI shares two cores with the server.
  await expect(page.locator("main h1").first()).toBeVisible({ timeout: 30_000 });
  await expect(page.locator("main [data-skeleton]")).toHaveCount(0, { timeout: 30_000 });
}
