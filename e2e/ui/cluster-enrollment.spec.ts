// Enrollment on the cluster list, and the list's triage columns. Group membership is not
// applicable while the fleet has no group (a fresh install's clusters enroll) and applies from
// the first group on. Enrollment is its own column (the items holding a cluster back on hover
// and focus) and filter, never a reason. "Last seen" sorts oldest first on the first click, a
// "NotReady since" column sorts the longest NotReady first, and the column chooser offers a
// column per label key. Desktop and phone, light and dark screenshots.
import type { APIRequestContext } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { okJson } from "../support/agent-process";
import { heartbeatNow, requiredLabels, seedClusters } from "../support/seed-clusters";
import { savePhoneScreenshots, saveScreenshots } from "../support/screenshots";

// The enrollment check runs every 10 s on a loaded machine: generous waits.
const slow = expect.configure({ timeout: 45_000 });

type ChecklistItem = { key: string; state: string; reason: string };

async function groupsItem(api: APIRequestContext, id: string): Promise<ChecklistItem> {
  const detail = await okJson<{ enrollment: { items: ChecklistItem[] } }>(await api.get(`/api/v1/clusters/${id}`));
  return detail.enrollment.items.find((i) => i.key === "groups")!;
}

async function groupCount(api: APIRequestContext): Promise<number> {
  return (await okJson<{ items: unknown[] }>(await api.get("/api/v1/groups"))).items.length;
}

/** Clusters of one run: two complete (one heard long ago), one stale NotReady, one NotReady longer, one never reporting. */
async function seedRun(admin: APIRequestContext, run: string) {
  const required = Object.fromEntries((await requiredLabels(admin)).map((k) => [k, "x"]));
  const labels = { ...required, enrol: run, "cost-center": `cc-${run}-observability` };
  const name = (n: string) => `sim-ap-northeast-1-dev-${run}-${n}`;
  const names = {
    complete: name("0001"),
    quiet: name("0002"),
    notReady: name("0003"),
    longer: name("0004"),
    silent: name("0005"),
  };
  const ids = await seedClusters(run, [
    { name: names.complete, labels },
    { name: names.quiet, labels, heardSecondsAgo: 20 },
    { name: names.notReady, labels, heardSecondsAgo: 30 * 60, status: "NotReady", statusChangedSecondsAgo: 25 * 60 },
    { name: names.longer, labels, heardSecondsAgo: 3 * 3600, status: "NotReady", statusChangedSecondsAgo: 170 * 60 },
    { name: names.silent, labels, reporting: false },
  ]);
  return { names, ids };
}

test.describe("enrollment and triage on the cluster list", () => {
  test.use(asRole("admin"));

  test("group membership is not applicable without groups and applies with the first one; enrollment is a column and a filter", async ({
    page,
    apiAs,
  }, testInfo) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    const admin = await apiAs("admin");
    const run = `e${Date.now().toString(36)}`;
    const { names, ids } = await seedRun(admin, run);
    const complete = ids[names.complete]!;

    // Other specs may have created groups already, or create one while this waits (the other
    // worker): only a fleet still without groups must show "not applicable".
    if ((await groupCount(admin)) === 0) {
      await expect
        .poll(
          async () => {
            const item = await groupsItem(admin, complete);
            if ((await groupCount(admin)) > 0) return "a group appeared meanwhile";
            return /not applicable/.test(item.reason) && item.state === "pass" ? "not applicable, passing" : item.reason;
          },
          { timeout: 45_000 },
        )
        .toMatch(/^(not applicable, passing|a group appeared meanwhile)$/);
    }

    // A group selecting this run's clusters: complete ones enroll, the silent one does not.
    const group = await okJson<{ id: string }>(
      await admin.post("/api/v1/groups", { data: { name: `e2e-enrol-${run}`, selector: `enrol=${run}` }, headers: SAME_ORIGIN }),
    );
    await expect.poll(async () => (await groupsItem(admin, complete)).state, { timeout: 45_000 }).toBe("pass");
    expect((await groupsItem(admin, complete)).reason).toMatch(/member of \d+ group/);

    await page.goto(`/clusters?q=${run}`);
    const row = (name: string) => page.locator(`[data-cluster-id="${ids[name]}"]`);
    await heartbeatNow([complete]);
    await slow(row(names.complete).locator('[data-enrollment="enrolled"]')).toBeVisible();
    await slow(row(names.silent).locator('[data-enrollment="blocked"]')).toBeVisible();
    // Not a reason: the Reason column never says "not enrolled".
    await expect(page.getByTestId("cluster-reasons").filter({ hasText: /enrolled/i })).toHaveCount(0);
    // The items holding it back, on hover and on keyboard focus.
    const blocked = row(names.silent).getByTestId("enrollment-blocked");
    await blocked.hover();
    await expect(page.getByRole("tooltip")).toContainText(/Blocked on: .*Logs reporting; Metrics reporting/);
    await page.mouse.move(0, 0);
    await blocked.focus();
    await expect(page.getByRole("tooltip")).toContainText("Logs reporting");
    await saveScreenshots(page, testInfo, "cluster-list-enrollment");

    // The filter: in the URL, the list follows.
    await page.getByLabel("Enrollment").selectOption("blocked");
    await slow(page).toHaveURL(/[?&]enrollment=blocked/);
    await slow(row(names.silent)).toBeVisible();
    await slow(row(names.complete)).toHaveCount(0);
    await page.getByLabel("Enrollment").selectOption("enrolled");
    await slow(page).toHaveURL(/[?&]enrollment=enrolled/);
    await slow(row(names.complete)).toBeVisible();
    await expect(row(names.silent)).toHaveCount(0);

    // With its group gone and no other, membership is not applicable again.
    expect((await admin.delete(`/api/v1/groups/${group.id}`, { headers: SAME_ORIGIN })).status()).toBe(204);
    if ((await groupCount(admin)) === 0)
      await expect.poll(async () => (await groupsItem(admin, complete)).reason, { timeout: 45_000 }).toMatch(/not applicable/);

    // On a phone the filter is behind the folded "Filters" button and counts as active.
    await page.goto(`/clusters?q=${run}&enrollment=blocked`);
    await page.setViewportSize({ width: 390, height: 844 });
    await slow(page.getByTestId("active-filter-count")).toHaveText(/^2/);
    await page.getByRole("button", { name: /^Filters/ }).click();
    await expect(page.getByLabel("Enrollment")).toHaveValue("blocked");
    await slow(row(names.silent)).toBeVisible();
    await savePhoneScreenshots(page, testInfo, "cluster-list-enrollment-phone", { fullPage: false });
  });

  test("Last seen sorts oldest first, NotReady since is a sortable column, and label keys can be columns", async ({
    page,
    apiAs,
  }, testInfo) => {
    test.setTimeout(150_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    const admin = await apiAs("admin");
    const run = `t${Date.now().toString(36)}`;
    const { names, ids } = await seedRun(admin, run);
    await heartbeatNow([ids[names.complete]!, ids[names.silent]!]);
    await page.goto(`/clusters?q=${run}`);
    await expect(page.getByTestId("clusters-total")).toHaveText("5", { timeout: 30_000 });
    const rowNames = () => page.locator("tbody tr").getByTestId("cluster-name").allInnerTexts();

    // Last seen: the first click puts the longest silent first.
    await page.getByRole("button", { name: /^Last seen/ }).click();
    await slow(page).toHaveURL(/sort=lastHeartbeatAt&order=asc/);
    await expect(page.getByRole("columnheader", { name: /Last seen/ })).toHaveAttribute("aria-sort", "ascending");
    await expect.poll(async () => (await rowNames())[0]).toBe(names.longer);
    expect((await rowNames()).slice(0, 2)).toEqual([names.longer, names.notReady]);

    // NotReady since: chosen in the column chooser, empty for clusters that are not NotReady.
    await page.getByText("Columns", { exact: true }).click();
    const chooser = page.getByRole("group", { name: "Columns to show" });
    await chooser.getByLabel("NotReady since").check();
    const header = page.getByRole("columnheader", { name: /NotReady since/ });
    await expect(header).toBeVisible();
    const sinceCell = (name: string) => page.locator(`[data-cluster-id="${ids[name]}"] [data-column="notReadySince"]`);
    await expect(sinceCell(names.longer)).toHaveText(/ago/);
    await expect(sinceCell(names.notReady)).toHaveText(/2[56] min ago/);
    await expect(sinceCell(names.complete)).toHaveText("");
    await header.getByRole("button").click();
    await slow(page).toHaveURL(/sort=notReadySince&order=asc/);
    await expect.poll(async () => (await rowNames()).slice(0, 2)).toEqual([names.longer, names.notReady]);
    await header.getByRole("button").click();
    await slow(page).toHaveURL(/sort=notReadySince&order=desc/);
    // Newest NotReady first; the clusters that are not NotReady stay after them.
    await expect.poll(async () => (await rowNames()).slice(0, 2)).toEqual([names.notReady, names.longer]);

    // A label key as a column: its value in every row, kept across a reload.
    const labels = page.getByRole("group", { name: "Label columns" });
    if (!(await labels.isVisible())) await page.getByText("Columns", { exact: true }).click();
    await labels.getByLabel("cost-center", { exact: true }).check();
    await expect(page.getByRole("columnheader", { name: "cost-center" })).toBeVisible();
    const valueCell = page.locator(`[data-cluster-id="${ids[names.complete]}"] [data-column="label:cost-center"]`);
    await expect(valueCell).toHaveText(`cc-${run}-observability`);
    await saveScreenshots(page, testInfo, "cluster-list-triage-columns");
    await page.reload();
    await expect(page.getByRole("columnheader", { name: "cost-center" })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole("columnheader", { name: /NotReady since/ })).toBeVisible();

    // On a phone the cards follow the same order, and the sort is a control of its own.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: /^Filters/ }).click();
    await page.getByLabel("Sort by").selectOption("lastHeartbeatAt:asc");
    await slow(page).toHaveURL(/sort=lastHeartbeatAt&order=asc/);
    await expect
      .poll(async () => (await page.getByTestId("cluster-cards").getByTestId("cluster-name").allInnerTexts())[0])
      .toBe(names.longer);
    await savePhoneScreenshots(page, testInfo, "cluster-list-triage-phone", { fullPage: false });
  });
});
