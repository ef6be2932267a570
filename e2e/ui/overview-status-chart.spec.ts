// The Overview's status chart: NotReady, Pending and Draining are lines on their own axis, one
// point a minute (a short NotReady spike is not hidden by stacking or by sampling), and Ready has
// a chart and a scale of its own.
import { asRole, expect, test } from "../fixtures";
import { execSql, sqlTimestamp } from "../support/database";
import { savePhoneScreenshots, saveScreenshots } from "../support/screenshots";
import { startSimulator, stopSimulator, waitForReadyClusters } from "../support/simulator";

const MINUTE = 60_000;
/** A Ready count no live fleet in the e2e run has: it marks this spec's samples. */
const MARK = 4_321;

test.describe("overview status chart", () => {
  test.use(asRole("viewer"));

  test.describe.configure({ timeout: 120_000 });

  test("plots NotReady one point a minute on its own axis, Ready apart", async ({ page, apiAs }, testInfo) => {
    // The Overview shows its charts once the fleet has a cluster.
    const run = `chart-${Date.now().toString(36)}`;
    const admin = await apiAs("admin");
    const simulator = await startSimulator(admin, testInfo, {
      clusters: 1,
      label: ["e2e-chart", run],
      prefix: `e2e-${run}`,
      durationSeconds: 120,
    });
    try {
      await waitForReadyClusters(admin, simulator, `e2e-chart=${run}`, 1);
    } finally {
      await stopSimulator(simulator);
    }

    // Thirty minutes of samples five hours ago (before this run's server sampled anything), the
    // NotReady count changing every minute: 2, 5, 2, 5...
    const start = Math.floor((Date.now() - 5 * 3600_000) / MINUTE) * MINUTE;
    for (let i = 0; i < 30; i++) {
      const notReady = i % 2 ? 5 : 2;
      await execSql(
        `INSERT INTO "FleetSample" ("at", "ready", "notReady", "pending", "draining", "total") VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        [sqlTimestamp(new Date(start + i * MINUTE)), MARK, notReady, 1, 0, MARK + notReady + 1],
      );
    }

    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto("/");
      const chart = page.getByTestId("status-history");
      await expect(chart).toBeVisible({ timeout: 30_000 });
      await expect(chart).toHaveAttribute("data-resolution-seconds", "60");

      // The numbers behind the chart: every one of the thirty minutes is there, each NotReady change kept.
      const rows = await chart
        .locator("table tbody tr")
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("th, td")].map((c) => c.textContent ?? "")));
      const ours = rows.filter((r) => r[4] === String(MARK));
      expect(ours.map((r) => r[1])).toEqual(Array.from({ length: 30 }, (_, i) => (i % 2 ? "5" : "2")));
      expect(new Set(ours.map((r) => r[0])).size).toBe(30);

      // The NotReady line is drawn, with a vertex per minute (not stacked on another series).
      const line = chart.locator('path.recharts-curve[stroke="#f43f5e"]');
      await expect(line).toBeVisible();
      const vertices = await line.evaluate((p) => (p.getAttribute("d") ?? "").split(/[ML]/).filter((s) => s.trim()).length);
      expect(vertices).toBeGreaterThanOrEqual(30);
      await expect(chart.locator("path.recharts-area")).toHaveCount(0);
      // Ready on its own scale, and a legend naming each series.
      await expect(chart.locator('path.recharts-curve[stroke="#10b981"]')).toBeVisible();
      for (const s of ["NotReady", "Pending", "Draining", "Ready"]) await expect(chart.getByTestId(`legend-${s}`)).toBeVisible();
      await expect(chart.locator("figure")).toHaveAttribute("aria-label", /one point a minute/);

      if (viewport.width === 1440) await saveScreenshots(page, testInfo, "overview-status-chart");
      else await savePhoneScreenshots(page, testInfo, "overview-status-chart-phone");
    }
  });
});
