// The console on a phone (390x844, touch): the navigation is a drawer behind a menu button,
// opened and closed by keyboard and by touch; no page is wider than the screen (tables scroll
// in their own box); cards stack. Screenshots of the phone layout go to docs/screenshots for the README.
import path from "node:path";
import type { Page } from "@playwright/test";
import { asRole, expect, test } from "../fixtures";
import { consolePages, openConsolePage, seedFleet, stopFleet, type SeededFleet } from "../support/console-pages";

const SCREENSHOTS = path.join(process.cwd(), "docs", "screenshots");

function drawer(page: Page) {
  return page.getByRole("dialog", { name: "Navigation" });
}

test.describe("phone layout", () => {
  test.describe.configure({ mode: "serial", timeout: 90_000 });
  test.use({ ...asRole("admin"), viewport: { width: 390, height: 844 }, hasTouch: true });

  let fleet: SeededFleet | undefined;
  test.beforeAll(async ({ playwright }, testInfo) => {
    test.setTimeout(90_000);
    fleet = await seedFleet(playwright, testInfo, "phone");
  });
  test.afterAll(async () => stopFleet(fleet));

  test("the skip link comes first and the navigation drawer works by keyboard", async ({ page, shell }) => {
    await openConsolePage(page, "/clusters");
    // No sidebar on a phone: the main navigation is hidden until the menu opens.
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();

    await shell.skipToContent();

    const menu = page.getByRole("button", { name: "Open navigation" });
    await menu.focus();
    await page.keyboard.press("Enter");
    await expect(drawer(page)).toBeVisible();
    await expect(menu).toHaveAttribute("aria-expanded", "true");
    // Focus moved into the drawer; Escape closes it and gives focus back to the menu button.
    await expect(drawer(page).locator(":focus")).toHaveCount(1);
    await page.keyboard.press("Escape");
    await expect(drawer(page)).toBeHidden();
    await expect(menu).toBeFocused();
    await expect(menu).toHaveAttribute("aria-expanded", "false");

    // Following a link closes the drawer.
    await page.keyboard.press("Enter");
    await drawer(page).getByRole("link", { name: "Groups" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/groups$/);
    await expect(drawer(page)).toBeHidden();
    await expect(page.getByRole("heading", { level: 1, name: "Groups" })).toBeVisible();
  });

  test("the navigation drawer works by touch", async ({ page }) => {
    await openConsolePage(page, "/");
    const menu = page.getByRole("button", { name: "Open navigation" });
    await menu.tap();
    await expect(drawer(page)).toBeVisible();
    const nav = drawer(page).getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
    // A tap beside the drawer (on the backdrop) closes it.
    await page.touchscreen.tap(370, 420);
    await expect(drawer(page)).toBeHidden();
    // The close button closes it.
    await menu.tap();
    await drawer(page).getByRole("button", { name: "Close navigation" }).tap();
    await expect(drawer(page)).toBeHidden();
    // A link navigates and closes it.
    await menu.tap();
    await nav.getByRole("link", { name: "Clusters" }).tap();
    await expect(page).toHaveURL(/\/clusters$/);
    await expect(drawer(page)).toBeHidden();
  });

  test("no page is wider than the screen and cards stack", async ({ page }) => {
    test.setTimeout(240_000);
    for (const { path: url } of consolePages(fleet!)) {
      await openConsolePage(page, url);
      const widths = await page.evaluate(() => ({ scroll: document.scrollingElement!.scrollWidth, inner: innerWidth }));
      expect(widths.scroll, `${url} is ${widths.scroll} px wide on a ${widths.inner} px screen`).toBeLessThanOrEqual(
        widths.inner,
      );
      // The avatar and the logo share the header without overlapping.
      const logo = await page.locator("header").getByRole("link", { name: "Fleet Registry" }).boundingBox();
      const account = await page
        .locator("header")
        .getByRole("button", { name: /^Account:/ })
        .boundingBox();
      expect(logo!.x + logo!.width, `${url}: logo and account menu overlap`).toBeLessThanOrEqual(account!.x);
    }

    // Cards take the full width, one under the other.
    await openConsolePage(page, "/");
    const first = await page
      .getByRole("heading", { name: "Heartbeats per second" })
      .locator("xpath=ancestor::section[1]")
      .boundingBox();
    const second = await page
      .getByRole("heading", { name: "Clusters by status, last 6 hours" })
      .locator("xpath=ancestor::section[1]")
      .boundingBox();
    expect(Math.abs(first!.x - second!.x)).toBeLessThan(1);
    expect(second!.y).toBeGreaterThanOrEqual(first!.y + first!.height);
    expect(first!.width).toBeGreaterThan(390 - 48);
  });

  test("screenshots of the phone layout in light and dark", async ({ page }) => {
    for (const theme of ["light", "dark"] as const) {
      await page.addInitScript((t) => localStorage.setItem("theme", t), theme);
      await openConsolePage(page, "/clusters");
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.screenshot({ path: path.join(SCREENSHOTS, `phone-clusters-${theme}.png`) });
      await page.getByRole("button", { name: "Open navigation" }).tap();
      await expect(drawer(page)).toBeVisible();
      await page.screenshot({ path: path.join(SCREENSHOTS, `phone-nav-${theme}.png`) });
    }
  });
});
