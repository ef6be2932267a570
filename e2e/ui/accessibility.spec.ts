// An axe-core scan of every console page, over a small live fleet, at desktop (1440 px) and phone
// (390x844) widths in the light and the dark theme: no page may have a serious or critical
// violation (contrast, names, table headers, scrollable regions...), nor a skipped heading level
// or two unnamed landmarks of a kind. One load per page: the
// viewport and the theme change in place, so four scans cost little more than one.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { asRole, expect, test } from "../fixtures";
import { consolePages, openConsolePage, seedFleet, stopFleet, type SeededFleet } from "../support/console-pages";

/**
 * Structure a screen-reader user navigates by, held to the same bar though axe rates it moderate:
 * headings that skip no level, and landmarks of one kind told apart by their names.
 */
const STRUCTURE_RULES = ["heading-order", "landmark-unique", "landmark-complementary-is-top-level"];

/** Serious and critical violations (and STRUCTURE_RULES') on the page as it is now, one line each with up to three places. */
async function seriousViolations(page: Page, label: string): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical" || STRUCTURE_RULES.includes(v.id))
    .map((v) => {
      const where = v.nodes
        .slice(0, 3)
        .map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n")[1]?.trim() ?? ""}`)
        .join(" | ");
      return `${label} ${v.id} (${v.impact}, ${v.nodes.length}x) ${where}`;
    });
}

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

test.describe("accessibility", () => {
  // Generous: axe over a 50-row cluster list took over 90 s once with both cores busy (four scans now).
  test.describe.configure({ mode: "serial", timeout: 300_000 });
  test.use(asRole("admin"));

  let fleet: SeededFleet | undefined;
  test.beforeAll(async ({ playwright }, testInfo) => {
    test.setTimeout(90_000);
    fleet = await seedFleet(playwright, testInfo, "axe");
  });
  test.afterAll(async () => stopFleet(fleet));

  // The list of pages is fixed; only the detail pages' ids wait for the seeded fleet.
  for (const { name } of consolePages({ clusterId: "", rolloutId: "", group: "" })) {
    test(`${name}: no serious or critical axe violation at either width in the light or the dark theme`, async ({ page }) => {
      const { path } = consolePages(fleet!).find((p) => p.name === name)!;
      await page.setViewportSize(DESKTOP);
      await openConsolePage(page, path);
      const found: string[] = [];
      for (const viewport of [DESKTOP, PHONE]) {
        await page.setViewportSize(viewport);
        // Charts and tables re-measure after a resize.
        await page.waitForTimeout(300);
        // The theme is the class on <html> (as the toggle sets it): scan, switch, scan again.
        for (const dark of [false, true]) {
          await page.evaluate((d) => document.documentElement.classList.toggle("dark", d), dark);
          // Colour transitions (buttons, links) finish before contrast is measured.
          await page.waitForFunction(() =>
            document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity),
          );
          found.push(...(await seriousViolations(page, `${path} (${viewport.width} px, ${dark ? "dark" : "light"})`)));
        }
      }
      expect(found, found.join("\n")).toEqual([]);
    });
  }
});
