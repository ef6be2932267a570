import { expect, type Page, type TestInfo } from "@playwright/test";

/**
 * Full-page screenshots of the current page at 1440x900 in both themes, attached to the test as
 * artifacts (`<name>-light.png`, `<name>-dark.png`).
 */
export async function saveScreenshots(page: Page, testInfo: TestInfo, name: string) {
  await shootBothThemes(page, testInfo, name, { width: 1440, height: 900 }, true);
}

/** From the top with nothing focused (so sticky parts sit where they belong), light then dark. */
async function shootBothThemes(
  page: Page,
  testInfo: TestInfo,
  name: string,
  viewport: { width: number; height: number },
  fullPage: boolean,
) {
  await page.setViewportSize(viewport);
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), theme === "dark");
    await page.waitForTimeout(300); // charts re-measure after the resize
    const file = testInfo.outputPath(`${name}-${theme}.png`);
    await page.screenshot({ path: file, fullPage });
    await testInfo.attach(`${name}-${theme}`, { path: file, contentType: "image/png" });
  }
  await page.evaluate(() => document.documentElement.classList.remove("dark"));
}

/**
 * Like saveScreenshots, but loads `url` once per theme with the theme stored as the app stores
 * it, so the screenshots also show the app applying a saved theme; `ready` waits for the content.
 */
export async function saveScreenshotsOfUrl(
  page: Page,
  testInfo: TestInfo,
  url: string,
  name: string,
  ready: () => Promise<void>,
) {
  await page.setViewportSize({ width: 1440, height: 900 });
  for (const theme of ["light", "dark"] as const) {
    await page.addInitScript((t) => localStorage.setItem("theme", t), theme);
    await page.goto(url);
    await ready();
    await expect(page.locator("html")).toHaveClass(theme === "dark" ? /\bdark\b/ : /^(?!.*\bdark\b)/);
    const file = testInfo.outputPath(`${name}-${theme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach(`${name}-${theme}`, { path: file, contentType: "image/png" });
  }
}

/**
 * Light and dark screenshots of the current page on a phone (390x844), attached like
 * saveScreenshots' (`<name>-light.png`, `<name>-dark.png`; put "phone" in the name). `fullPage:
 * false` keeps only the first screen, for tests about what a phone shows without scrolling.
 */
export async function savePhoneScreenshots(page: Page, testInfo: TestInfo, name: string, { fullPage = true } = {}) {
  await shootBothThemes(page, testInfo, name, { width: 390, height: 844 }, fullPage);
}
