// An axe-core scan of every console page, over a small live fleet, in the light and the dark
// theme: no page may have a serious or critical violation (contrast, names, table headers...).
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { asRole, expect, test } from "../fixtures";
import { consolePages, openConsolePage, seedFleet, stopFleet, type SeededFleet } from "../support/console-pages";

/** Serious and critical violations on the page as it is now, one line each with up to three places. */
async function seriousViolations(page: Page, label: string): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => {
      const where = v.nodes
        .slice(0, 3)
        .map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n")[1]?.trim() ?? ""}`)
        .join(" | ");
      return `${label} ${v.id} (${v.impact}, ${v.nodes.length}x) ${where}`;
    });
}

test.describe("accessibility", () => {
  // Generous: axe over a 50-row cluster list took over 90 s once with both cores busy.
  test.describe.configure({ mode: "serial", timeout: 180_000 });
  test.use(asRole("admin"));

  let fleet: SeededFleet | undefined;
  test.beforeAll(async ({ playwright }, testInfo) => {
    test.setTimeout(90_000);
    fleet = await seedFleet(playwright, testInfo, "axe");
  });
  test.afterAll(async () => stopFleet(fleet));

  // The list of pages is fixed; only the detail pages' ids wait for the seeded fleet.
  for (const { name } of consolePages({ clusterId: "", rolloutId: "" })) {
    test(`${name}: no serious or critical axe violation in the light or the dark theme`, async ({ page }) => {
      const { path } = consolePages(fleet!).find((p) => p.name === name)!;
      await openConsolePage(page, path);
      const found: string[] = [];
      // The theme is the class on <html> (as the toggle sets it): scan, switch, scan again.
      for (const dark of [false, true]) {
        await page.evaluate((d) => document.documentElement.classList.toggle("dark", d), dark);
        // Colour transitions (buttons, links) finish before contrast is measured.
        await page.waitForFunction(() =>
          document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity),
        );
        found.push(...(await seriousViolations(page, `${path} (${dark ? "dark" : "light"})`)));
      }
      expect(found, found.join("\n")).toEqual([]);
    });
  }
});
