// The cluster list stays readable with real-world names, reasons and labels: at 1440 px a long
// name is whole (it wraps, never losing its distinguishing end), a long reason ends in a real
// ellipsis with its whole text on hover and on keyboard focus, label chips show their whole
// value. On a 390x844 phone the rows are cards (name, status, first reason, a working selection
// box) and the filters fold behind a "Filters" button that counts the active ones, so the first
// cluster is on the first screen. Light and dark screenshots at both sizes.
import AxeBuilder from "@axe-core/playwright";
import type { Locator } from "@playwright/test";
import { asRole, expect, test } from "../fixtures";
import { heartbeatNow, seedClusters } from "../support/seed-clusters";
import { savePhoneScreenshots, saveScreenshots } from "../support/screenshots";

const slow = expect.configure({ timeout: 30_000 });

const LONG_VALUE = "platform-observability-and-reliability-engineering-emea";

function fleetOf(run: string) {
  const name = (n: string) => `sim-ap-northeast-1-dev-${run}-${n}`;
  const labels = { env: "dev", owner: LONG_VALUE, run };
  return {
    names: [name("0041"), name("0042"), name("0043"), name("0044"), name("0045"), name("0046")],
    clusters: [
      // Two registrations of one Kubernetes cluster: each says "Same cluster as <the other's long name>".
      { name: name("0041"), labels, clusterUid: `uid-a-${run}` },
      { name: name("0042"), labels, clusterUid: `uid-a-${run}` },
      { name: name("0043"), labels, heardSecondsAgo: 20 * 60, status: "NotReady" as const },
      // Three registrations of another: each names the two others, too long for the cell.
      { name: name("0044"), labels, clusterUid: `uid-b-${run}` },
      { name: name("0045"), labels, clusterUid: `uid-b-${run}` },
      { name: name("0046"), labels, clusterUid: `uid-b-${run}` },
    ],
  };
}

/** The element shows its whole text: nothing overflows its box. */
async function notClipped(locator: Locator): Promise<{ scroll: number; client: number; text: string }> {
  return locator.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, text: (el as HTMLElement).innerText }));
}

test.describe("cluster list readability", () => {
  test.use(asRole("operator"));

  test("at 1440 px names are whole, reasons end in an ellipsis with the whole text on hover and focus, labels whole", async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    const run = `r${Date.now().toString(36)}`;
    const { names, clusters } = fleetOf(run);
    const ids = await seedClusters(run, clusters);
    await page.goto(`/clusters?q=${run}`);
    await slow(page.getByTestId("clusters-total")).toHaveText("6");

    for (const name of names) {
      const link = page.locator(`[data-cluster-id="${ids[name]}"]`).getByTestId("cluster-name");
      await expect(link).toBeVisible();
      const box = await notClipped(link);
      expect(box.text, "the whole name is shown").toBe(name);
      expect(box.scroll, `${name} overflows its cell`).toBeLessThanOrEqual(box.client);
    }

    // The "Same cluster as …" reason naming one other registration is whole.
    const row = page.locator(`[data-cluster-id="${ids[names[0]!]}"]`);
    const pair = row.locator('[data-reason="sameCluster"] [data-hover-tip]');
    await expect(pair).toHaveText(`Same cluster as ${names[1]}`);
    const pairBox = await pair.evaluate((el) => ({ scroll: el.scrollHeight, client: el.clientHeight }));
    expect(pairBox.scroll, "the reason is not clipped").toBeLessThanOrEqual(pairBox.client + 1);

    // One naming two others is cut with a real ellipsis, and whole in a tooltip on hover and on focus.
    const long = page.locator(`[data-cluster-id="${ids[names[3]!]}"] [data-reason="sameCluster"] [data-hover-tip]`);
    const whole = `Same cluster as ${names[4]}, ${names[5]}`;
    const style = await long.evaluate((el) => {
      const s = getComputedStyle(el);
      return { overflow: s.overflow, clamp: s.webkitLineClamp, cut: el.scrollHeight > el.clientHeight + 1 };
    });
    expect(style).toEqual({ overflow: "hidden", clamp: "4", cut: true });
    await long.hover();
    await expect(page.getByRole("tooltip")).toContainText(whole);
    await page.mouse.move(0, 0);
    await expect(page.getByRole("tooltip")).toHaveCount(0);
    await long.focus();
    await expect(long).toBeFocused();
    await expect(page.getByRole("tooltip")).toContainText(whole);
    await page.keyboard.press("Escape");
    await expect(page.getByRole("tooltip")).toHaveCount(0);

    // Label chips are whole: the long team value is all there, nothing cut.
    const chip = row.getByRole("list", { name: "Labels" }).getByText(LONG_VALUE, { exact: true });
    await expect(chip).toBeVisible();
    const chipBox = await notClipped(chip.locator("xpath=ancestor::span[1]"));
    expect(chipBox.text.replace(/\s/g, "")).toContain(LONG_VALUE);
    expect(chipBox.scroll).toBeLessThanOrEqual(chipBox.client);

    // The table's scroll box is reachable by keyboard and named.
    await expect(page.getByRole("region", { name: "Clusters table" })).toHaveAttribute("tabindex", "0");
    await heartbeatNow([0, 1, 3, 4, 5].map((i) => ids[names[i]!]!));
    await saveScreenshots(page, testInfo, "cluster-list-readable");
  });

  test("on a 390x844 phone rows are cards, the filters fold away and the first card is on the first screen", async ({
    page,
  }, testInfo) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    const run = `p${Date.now().toString(36)}`;
    const { names, clusters } = fleetOf(run);
    const ids = await seedClusters(run, clusters);
    await page.goto(`/clusters?q=${run}&health=ready`);
    const cards = page.getByTestId("cluster-cards");
    await slow(cards).toBeVisible();
    await expect(page.locator("table")).toHaveCount(0);
    await expect(cards.locator("[data-cluster-id]")).toHaveCount(5);

    // The filters are folded; the button says how many are active and opens them.
    const toggle = page.getByRole("button", { name: /^Filters/ });
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await expect(page.getByTestId("active-filter-count")).toHaveText(/^2/);
    await expect(page.getByRole("search", { name: "Filter clusters" })).toBeHidden();

    // The first card is on the first screen, and names are whole there too.
    const first = cards.locator("[data-cluster-id]").first();
    const box = (await first.boundingBox())!;
    expect(box.y + box.height, "the first card ends within the first screen").toBeLessThanOrEqual(844);
    for (const name of names.slice(0, 2)) {
      const link = page.locator(`[data-cluster-id="${ids[name]}"]`).getByTestId("cluster-name");
      const b = await notClipped(link);
      expect(b.text).toBe(name);
      expect(b.scroll).toBeLessThanOrEqual(b.client);
    }
    // Each card: status and the first reason.
    const card = page.locator(`[data-cluster-id="${ids[names[0]!]}"]`);
    await expect(card.getByText("Ready", { exact: true })).toBeVisible();
    await expect(card.getByTestId("cluster-reasons")).toContainText("Same cluster as");
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    // No serious or critical axe finding on the phone list (no unreachable scroll box among them).
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(
      violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes[0]?.target}`),
    ).toEqual([]);
    await savePhoneScreenshots(page, testInfo, "cluster-list-phone", { fullPage: false });

    // The selection box on a card works.
    await card.getByRole("checkbox", { name: `Select ${names[0]}` }).check();
    await expect(page.getByTestId("bulk-selection")).toHaveText("1 selected cluster");

    // Opening the filters shows them; the first card moves down but the list is still there.
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await expect(page.getByRole("search", { name: "Filter clusters" })).toBeVisible();
    await expect(page.getByLabel("Health")).toHaveValue("ready");
    await page.getByLabel("Health").selectOption("");
    await slow(cards.locator("[data-cluster-id]")).toHaveCount(6);
    await expect(page.getByTestId("active-filter-count")).toHaveText(/^1/);
    await savePhoneScreenshots(page, testInfo, "cluster-list-phone-filters", { fullPage: false });
  });
});
