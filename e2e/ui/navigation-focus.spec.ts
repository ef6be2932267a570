// Moving around the console: after a client-side navigation focus lands on the new page's main
// heading (not on a full load, where the skip link is still the first stop), and a fresh load
// does not prefetch every section of the sidebar in the background; a section is prefetched when
// its link is pointed at or focused.
import type { Page, Request } from "@playwright/test";
import { asRole, expect, test } from "../fixtures";

/** React Server Component requests (`?_rsc=`): on a page nobody has navigated from yet, prefetches. */
function recordRsc(page: Page): Request[] {
  const seen: Request[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).searchParams.has("_rsc") || r.headers()["next-router-prefetch"]) seen.push(r);
  });
  return seen;
}

test.describe("navigation", () => {
  test.use(asRole("admin"));

  test("a fresh load prefetches no section; pointing at a link prefetches that one", async ({ page, shell }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const rsc = recordRsc(page);
    await page.goto("/");
    await expect(page.locator("main h1")).toHaveText("Overview");
    // The live event stream stays open, so "network idle" never comes: give prefetches time to start.
    await page.waitForTimeout(2_000);
    // The sidebar's sections (those the page's own content does not also link to) were not fetched.
    const sidebarOnly = await page.evaluate(() => {
      const paths = (sel: string) => [...document.querySelectorAll<HTMLAnchorElement>(sel)].map((a) => new URL(a.href).pathname);
      const inMain = new Set(paths("main a[href]"));
      return paths('nav[aria-label="Main"] a[href]').filter((p) => !inMain.has(p));
    });
    expect(sidebarOnly.length).toBeGreaterThan(5);
    const fetched = rsc.map((r) => new URL(r.url()).pathname).filter((p) => sidebarOnly.includes(p));
    expect(fetched, "sections of the sidebar fetched in the background on a fresh load").toEqual([]);

    await shell.navLink("Groups").hover();
    await expect.poll(() => rsc.filter((r) => new URL(r.url()).pathname === "/groups").length).toBeGreaterThan(0);
    expect(rsc.filter((r) => sidebarOnly.includes(new URL(r.url()).pathname) && new URL(r.url()).pathname !== "/groups")).toEqual(
      [],
    );
  });

  test("focus moves to the new page's heading after a navigation, not on a full load", async ({ page, shell }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/");
    await expect(page.locator("main h1")).toHaveText("Overview");
    // A full load leaves focus at the document: the skip link is still the first stop and works.
    await expect(page.locator("main h1")).not.toBeFocused();
    await shell.skipToContent();

    await shell.navLink("Groups").click();
    await expect(page).toHaveURL(/\/groups$/);
    const heading = page.locator("main h1");
    await expect(heading).toHaveText("Cluster groups");
    await expect(heading).toBeFocused();
    await expect(heading).toHaveAttribute("tabindex", "-1");
    // The next Tab starts in the page's content, not back in the sidebar.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => !!document.activeElement?.closest("main"))).toBe(true);

    // By keyboard: Enter on a focused nav link.
    await shell.navLink("Versions").focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/versions$/);
    await expect(page.locator("main h1")).toBeFocused();
  });

  test("on a phone, a link in the drawer leads to the new page's heading", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    await expect(page.locator("main h1")).toHaveText("Overview");
    await page.getByRole("button", { name: "Open navigation" }).click();
    await page.getByRole("dialog", { name: "Navigation" }).getByRole("link", { name: "Node pools", exact: true }).click();
    await expect(page).toHaveURL(/\/node-pools$/);
    await expect(page.locator("main h1")).toHaveText("Node pools");
    await expect(page.locator("main h1")).toBeFocused();
  });
});
