import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/**
 * Serious and critical axe-core findings on the page as it is now, scanned in the light and then
 * the dark theme (the class on <html>, as the toggle sets it), one line each with up to three
 * places. `include` narrows the scan to one part of the page (a CSS selector).
 */
export async function seriousAxeFindings(page: Page, { include }: { include?: string } = {}): Promise<string[]> {
  const found: string[] = [];
  for (const dark of [false, true]) {
    await page.evaluate((d) => document.documentElement.classList.toggle("dark", d), dark);
    // Colour transitions (buttons, links) finish before contrast is measured.
    await page.waitForFunction(() =>
      document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity),
    );
    const builder = new AxeBuilder({ page });
    const { violations } = await (include ? builder.include(include) : builder).analyze();
    for (const v of violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
      const where = v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(" "))
        .join(" | ");
      found.push(`${dark ? "dark" : "light"} ${v.id} (${v.impact}, ${v.nodes.length}x): ${where}`);
    }
  }
  await page.evaluate(() => document.documentElement.classList.remove("dark"));
  return found;
}
