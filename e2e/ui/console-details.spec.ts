// Details of the console a browser shows: Settings lays out without shifting once loaded, "Edit
// labels" keeps the keyboard's place, the Overview's longest-NotReady card shows whole names, and
// the capacity page's kubelet and instance-type bars lead to the cluster list filtered by them.
import { asRole, expect, test } from "../fixtures";
import { execSql, sqlTimestamp } from "../support/database";
import { saveScreenshots } from "../support/screenshots";
import { seedClusters } from "../support/seed-clusters";

test.describe("console details", () => {
  test.use(asRole("admin"));
  // Each test loads a page or two; generous for a shared 2-core machine.
  test.describe.configure({ timeout: 90_000 });

  test("Settings: the layout shift of a hard load stays under 0.1", async ({ page }) => {
    // Every layout shift from the first paint on, as Core Web Vitals sums them (without input).
    await page.addInitScript(() => {
      const w = window as unknown as { __shifts: { value: number; sources: string[] }[] };
      w.__shifts = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as unknown as {
          value: number;
          hadRecentInput: boolean;
          sources?: { node?: Node | null }[];
        }[])
          if (!e.hadRecentInput)
            w.__shifts.push({
              value: e.value,
              sources: (e.sources ?? []).map((s) => {
                const el = s.node instanceof Element ? s.node : s.node?.parentElement;
                return el ? `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 120) : "?";
              }),
            });
      }).observe({ type: "layout-shift", buffered: true });
    });
    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto("/settings");
      await expect(page.locator("main h1")).toHaveText("Settings");
      await expect(page.locator("main [data-skeleton]")).toHaveCount(0, { timeout: 30_000 });
      // Quiet for a moment: late fonts and client-only parts have settled.
      await page.waitForTimeout(1500);
      const shifts = await page.evaluate(
        () => (window as unknown as { __shifts: { value: number; sources: string[] }[] }).__shifts,
      );
      const total = shifts.reduce((s, x) => s + x.value, 0);
      expect(total, `${viewport.width} px: ${JSON.stringify(shifts, null, 1)}`).toBeLessThan(0.1);
    }
  });

  test("Edit labels moves focus into the editor, and back to the button when it closes", async ({ page }) => {
    const run = `det${Date.now().toString(36)}`;
    const ids = await seedClusters(run, [{ name: `e2e-${run}-labels`, labels: { team: "core" } }]);
    await page.goto(`/clusters/${ids[`e2e-${run}-labels`]}`);
    const edit = page.getByRole("button", { name: "Edit labels" });
    await edit.press("Enter");
    const editor = page.getByRole("form", { name: "Edit labels" });
    await expect(editor).toBeVisible();
    await expect(editor.getByLabel("Key of label 1")).toBeFocused();
    await editor.getByRole("button", { name: "Cancel" }).click();
    await expect(edit).toBeFocused();
  });

  test("the Overview's longest-NotReady card shows whole names, wrapped", async ({ page }, testInfo) => {
    const run = `det${Date.now().toString(36)}`;
    const name = `e2e-${run}-a-cluster-name-long-enough-to-need-two-lines-in-a-narrow-card-eu-west-1`;
    const ids = await seedClusters(run, [{ name, status: "NotReady", heardSecondsAgo: 7200 }]);
    // NotReady longer than any other cluster of the run, so it heads the card.
    await execSql(`UPDATE "Cluster" SET "statusChangedAt" = ? WHERE "id" = ?`, [
      sqlTimestamp(new Date(Date.now() - 400 * 86_400_000)),
      ids[name]!,
    ]);
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/");
      const link = page.getByRole("link", { name, exact: true }).first();
      await expect(link).toBeVisible();
      // Nothing cut: the link's box holds all of its text.
      const cut = await link.evaluate(
        (el) => el.scrollWidth > el.clientWidth + 1 || getComputedStyle(el).textOverflow === "ellipsis",
      );
      expect(cut, `cut at ${width} px`).toBe(false);
      if (width === 1440) await saveScreenshots(page, testInfo, "overview-not-ready-names");
    }
  });

  test("kubelet and instance-type bars lead to the cluster list filtered by them", async ({ page }) => {
    const run = `det${Date.now().toString(36)}`;
    const name = `e2e-${run}-pools`;
    const ids = await seedClusters(run, [{ name }]);
    const id = ids[name]!;
    await execSql(
      `INSERT INTO "NodePool" ("id", "clusterId", "name", "nodeCount", "readyNodes", "kubeletVersion", "instanceType", "state", "updatedAt")
       VALUES (?, ?, 'general', 3, 3, 'v1.27.3', ?, 'Active', ?)`,
      [`np_${run}`, id, `e2e.${run}`, sqlTimestamp()],
    );
    await page.goto("/node-pools");
    // The chart draws once it has measured its box.
    const kubelet = page.locator('svg a[href="/clusters?kubelet=1.27"]');
    await expect(kubelet).toBeAttached({ timeout: 30_000 });
    await expect(kubelet).toHaveAttribute("aria-label", /^1\.27: \d+ nodes\. Show these clusters$/);
    const type = page.locator(`svg a[href="/clusters?instanceType=e2e.${run}"]`);
    await expect(type).toHaveCount(1);
    await page.goto(`/clusters?instanceType=e2e.${run}`);
    await expect(page.getByText(`A node pool of instance type e2e.${run}`)).toBeVisible();
    await expect(page.getByRole("link", { name, exact: true }).first()).toBeVisible();
    await page.goto("/clusters?kubelet=1.27");
    await expect(page.getByRole("link", { name, exact: true }).first()).toBeVisible();
  });
});
