// The audit log for incident review (filters in the URL that survive a
// reload, target names linked, details in a side panel that gives focus back, a CSV export of the
// current filter) and the registration objective card, which counts failures of the system only
// and keeps a readable layout at 1280, 1440 and 1920 px, with provisioning time beside it.
import { asRole, expect, SAME_ORIGIN, test } from "../fixtures";
import { seriousAxeFindings } from "../support/axe";
import { execSql, sqlTimestamp } from "../support/database";
import { saveScreenshots } from "../support/screenshots";

test.use(asRole("operator"));

test("audit: filters live in the URL and survive a reload; names link; details in a side panel; CSV export of the filter", async ({
  page,
  apiAs,
  auditPage,
}, testInfo) => {
  test.setTimeout(60_000); // a dozen page states, screenshots and a phone pass on a shared machine
  const operator = await apiAs("operator");
  const name = `audit-e2e-${Date.now().toString(36)}`;
  const created = await operator.post("/api/v1/groups", { data: { name, selector: "env=audit-e2e" }, headers: SAME_ORIGIN });
  expect(created.status()).toBe(201);

  // Filter through the form: the URL carries the filter.
  await auditPage.goto();
  await auditPage.filterBy("Target name or id", name);
  await expect(page).toHaveURL(new RegExp(`[?&]target=${name}`));
  await auditPage.filter("Action").fill("group.");
  await auditPage.filter("Action").press("Enter");
  await expect(page).toHaveURL(/[?&]action=group\./);

  // A reload (or a shared link) shows the same filtered view, filled in.
  await auditPage.reload();
  await expect(auditPage.filter("Target name or id")).toHaveValue(name);
  await expect(auditPage.filter("Action")).toHaveValue("group.");
  await expect(auditPage.rows).toHaveCount(1);
  const row = auditPage.rows.first();
  await expect(row).toContainText("group.create");
  const link = row.getByRole("link", { name });
  await expect(link).toHaveAttribute("href", "/groups");
  // Relative time with the absolute time, zone named, as its tooltip.
  await expect(row.locator("time")).toHaveAttribute("title", /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/);

  // Details open in a side panel; Escape closes it and focus returns to the row's button.
  // Named by its visible text, then the entry it opens: axe finds no name that leaves the text out.
  const opener = row.getByRole("button", { name: /\(details of group\.create at / });
  expect(await seriousAxeFindings(page, { include: "[data-testid=audit-row]" })).toEqual([]);
  await opener.click();
  const panel = page.getByRole("dialog", { name: "group.create" });
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId("audit-details")).toContainText(name);
  await expect(panel.locator("pre")).toContainText('"selector": "env=audit-e2e"');
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  await expect(opener).toBeFocused();
  // The close button works the same way, from the keyboard.
  await opener.press("Enter");
  await expect(panel).toBeVisible();
  await panel.getByRole("button", { name: "Close" }).press("Enter");
  await expect(panel).toHaveCount(0);
  await expect(opener).toBeFocused();

  // The export link is the same filter, evaluated on the server, as CSV with ISO times.
  const exportLink = page.getByTestId("audit-export");
  const href = (await exportLink.getAttribute("href")) ?? "";
  expect(href).toMatch(/^\/api\/v1\/audit\/export\?/);
  const params = new URL(href, "http://x").searchParams;
  expect(params.get("target")).toBe(name);
  expect(params.get("action")).toBe("group.");
  const csv = await page.request.get(href);
  expect(csv.status()).toBe(200);
  expect(csv.headers()["content-type"]).toContain("text/csv");
  expect(csv.headers()["content-disposition"]).toMatch(/^attachment; filename="audit-.*\.csv"$/);
  const lines = (await csv.text()).trimEnd().split("\r\n");
  expect(lines[0]).toBe("id,at,actor_type,actor,action,target_type,target_id,target_name,details");
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatch(
    new RegExp(`^\\d+,\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z,user,[^,]+,group\\.create,group,[^,]+,${name},`),
  );

  // A time range is kept in the URL as ISO instants; one that ends before the entry hides it.
  await auditPage.goto(`?target=${name}&to=2000-01-01T00:00:00.000Z`);
  await expect(page.getByText("No entries match these filters")).toBeVisible();
  await expect(auditPage.filters.getByTestId("audit-to")).toHaveValue(/^(1999-12-31|2000-01-01)T\d{2}:\d{2}$/);

  await auditPage.goto(`?target=${name}`);
  await expect(auditPage.rows).toHaveCount(1);
  await saveScreenshots(page, testInfo, "audit-log");
  // On a phone the filters stack and the table scrolls inside its own box, not the page's content.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(auditPage.filter("Actor")).toBeVisible();
  const fits = await page.evaluate(() => {
    const main = document.querySelector("main")!.getBoundingClientRect();
    const form = document.querySelector('form[role="search"]')!.getBoundingClientRect();
    const box = document.querySelector("table")!.parentElement!;
    return { form: form.right <= main.right + 1, table: box.getBoundingClientRect().right <= main.right + 1 };
  });
  expect(fits).toEqual({ form: true, table: true });
  // Inside its box the table keeps readable columns: the actor's address is on one line.
  const actor = auditPage.rows.first().locator("td").nth(1);
  const actorLines = await actor.evaluate((el) => {
    // One client rect per line box of the cell's text (the cell itself is as tall as its row).
    const range = document.createRange();
    range.selectNodeContents(el);
    return range.getClientRects().length;
  });
  expect(actorLines, "the actor on a phone, in lines").toBe(1);
});

test("registration objective: refusals beside it, failures against it; readable at 1280, 1440 and 1920", async ({
  page,
  apiAs,
}, testInfo) => {
  test.setTimeout(90_000); // four viewport widths, two screenshots and the cluster list
  const admin = await apiAs("admin");
  // The overview shows the card once the fleet has a cluster.
  const name = `objective-${Date.now().toString(36)}`;
  const cluster = await admin.post("/api/v1/clusters", {
    data: { name, labels: { env: "dev", region: "eu" } },
    headers: SAME_ORIGIN,
  });
  expect(cluster.status(), await cluster.text()).toBe(201);
  const now = sqlTimestamp();
  for (const result of ["ok", "ok", "token_exhausted", "token_expired", "missing_required_labels", "internal"]) {
    await execSql(`INSERT INTO "RegistrationAttempt" ("result", "at") VALUES (?, ?)`, [result, now]);
  }

  await page.goto("/");
  const failures = page.getByTestId("registration-failures");
  const refusals = page.getByTestId("registration-refusals");
  await expect(failures).toContainText("internal");
  await expect(refusals).toContainText("token_exhausted");
  await expect(refusals).toContainText("missing_required_labels");
  await expect(failures).not.toContainText("token_exhausted");
  await expect(page.getByTestId("registration-summary")).toContainText(/refused as designed/);

  for (const width of [1280, 1440, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    const summary = page.getByTestId("registration-summary");
    await expect(summary).toBeVisible();
    const box = (await summary.boundingBox())!;
    const lineHeight = await summary.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
    expect(box.height, `${width}px: the summary stays within 3 lines`).toBeLessThanOrEqual(3 * lineHeight + 1);
    // The bar's two labels each sit on one line, apart.
    const labels = page.getByTestId("registration-bar-labels").locator("span");
    const [low, objective] = [(await labels.nth(0).boundingBox())!, (await labels.nth(1).boundingBox())!];
    const labelLine = await labels.nth(1).evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
    expect(objective.height, `${width}px: "objective 99.9 %" on one line`).toBeLessThanOrEqual(labelLine + 1);
    expect(low.x + low.width, `${width}px: the labels do not touch`).toBeLessThan(objective.x);
    await expect(labels.nth(1)).toHaveText("objective 99.9 %");
    // The code lists sit below the summary, never over it.
    const failuresBox = (await failures.boundingBox())!;
    expect(failuresBox.y, `${width}px: "Failures by code" below the summary`).toBeGreaterThanOrEqual(box.y + box.height);
  }
  await saveScreenshots(page, testInfo, "registration-objective");

  // On a 390x844 phone the card takes the screen's width: nothing runs off it, the bar's labels
  // stay on one line each, and the code lists follow the summary.
  await page.setViewportSize({ width: 390, height: 844 });
  const summary = page.getByTestId("registration-summary");
  const card = summary.locator("xpath=ancestor::section[1]");
  const cardBox = (await card.boundingBox())!;
  expect(cardBox.x).toBeGreaterThanOrEqual(0);
  expect(cardBox.x + cardBox.width, "the card fits the phone").toBeLessThanOrEqual(390);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  const labels = page.getByTestId("registration-bar-labels").locator("span");
  const [low, objective] = [(await labels.nth(0).boundingBox())!, (await labels.nth(1).boundingBox())!];
  const labelLine = await labels.nth(1).evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
  expect(objective.height, 'phone: "objective 99.9 %" on one line').toBeLessThanOrEqual(labelLine + 1);
  expect(low.x + low.width, "phone: the labels do not touch").toBeLessThan(objective.x);
  const summaryBox = (await summary.boundingBox())!;
  expect((await failures.boundingBox())!.y).toBeGreaterThanOrEqual(summaryBox.y + summaryBox.height);

  // Provisioning time beside it: the pre-created cluster, still provisioning three days on, is
  // over the threshold, named with how long; the card links to the list filtered to Provisioning,
  // where its reason says the same.
  const { id } = (await cluster.json()) as { id: string };
  const threeDaysAgo = sqlTimestamp(new Date(Date.now() - 3 * 86_400_000));
  await execSql(`UPDATE "Cluster" SET "phaseChangedAt" = ? WHERE "id" = ?`, [threeDaysAgo, id]);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/");
  const open = page.getByTestId("provisioning-open");
  await expect(open.getByRole("listitem").filter({ hasText: name })).toContainText("for 3 d");
  await expect(page.getByTestId("provisioning-over")).toContainText(/\d+ for longer than the 10 min threshold/);
  expect(await seriousAxeFindings(page, { include: "[data-testid=provisioning-open]" })).toEqual([]);
  await open.getByRole("link", { name: /provisioning now/ }).click();
  await expect(page).toHaveURL(/\/clusters\?status=Provisioning$/);
  await page.goto(`/clusters?status=Provisioning&q=${name}`);
  await expect(page.locator(`[data-cluster-id="${id}"]`).getByTestId("cluster-reasons")).toContainText(
    "provisioning for 3 d, over the 10 min threshold",
  );
});
