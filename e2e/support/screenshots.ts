import type { Page, TestInfo } from "@playwright/test";

/**
 * Full-page screenshots of the current page at 1440x900 in both themes, attached to the test as
 * artifacts (`<name>-light.png`, `<name>-dark.png`).
 */
export async function saveScreenshots(page: Page, testInfo: TestInfo, name: string) {
  await page.setViewportSize({ width: 1440, height: 900 });
  // From the top with nothing focused, so sticky parts (sidebar, side panels) sit where they belong.
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), theme === "dark");
    await page.waitForTimeout(300); // charts re-measure after the resize
    const file = testInfo.outputPath(`${name}-${theme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach(`${name}-${theme}`, { path: file, contentType: "image/png" });
  }
  await page.evaluate(() => document.documentElement.classList.remove("dark"));
}
