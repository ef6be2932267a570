// A team operator's console over a 300-cluster fleet, on a desktop and on a phone: every page their
// navigation offers shows their team's clusters and never one outside the scope, the cluster list
// counts exactly theirs, and an out-of-scope cluster opened by URL is the 404 page an unknown id gets.
import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { BASE_URL, SAME_ORIGIN, asRole, expect, signIn, test } from "../fixtures";
import { seedClusters, type SeedCluster } from "../support/seed-clusters";

test.use(asRole("admin"));

const FLEET = 300;
const IN_SCOPE = 40;

type Fleet = { run: string; person: { email: string; password: string }; inIds: string[]; outIds: string[] };

/** 300 clusters, 40 of them the team's, and a team operator with no fleet role. */
async function teamFleet(apiAs: (role: "admin") => Promise<APIRequestContext>): Promise<Fleet> {
  const run = Date.now().toString(36).slice(-6);
  const clusters: SeedCluster[] = Array.from({ length: FLEET }, (_, i) => {
    const mine = i < IN_SCOPE;
    return {
      name: `${run}-${mine ? "in" : "out"}-${String(i).padStart(3, "0")}`,
      labels: { team: mine ? `pay${run}` : `other${run}`, env: i % 3 ? "dev" : "prod", region: i % 2 ? "eu" : "us" },
      // NotReady from the start, long since: a seeded Ready cluster would turn NotReady a minute
      // later by the server's hand, 270 at once, and crowd other specs' clusters out of the
      // Overview's "NotReady the longest" (times-on-hard-load.spec.ts looks for its own there).
      heardSecondsAgo: 7200,
      status: "NotReady",
    };
  });
  const ids = await seedClusters(run, clusters);
  const admin = await apiAs("admin");
  const team = await admin.post("/api/v1/teams", {
    data: { name: `pay-${run}`, selector: `team=pay${run}` },
    headers: SAME_ORIGIN,
  });
  expect(team.status(), await team.text()).toBe(201);
  const person = { email: `e2e-scale-op-${run}@fleet.test`, password: "e2e-scale-op-password-1" };
  expect((await admin.post("/api/v1/users", { data: { ...person, role: "none" }, headers: SAME_ORIGIN })).status()).toBe(201);
  const teamId = ((await team.json()) as { id: string }).id;
  const added = await admin.post(`/api/v1/teams/${teamId}/members`, {
    data: { user: person.email, role: "operator" },
    headers: SAME_ORIGIN,
  });
  expect(added.status(), await added.text()).toBe(201);
  const byName = Object.entries(ids);
  return {
    run,
    person,
    inIds: byName.filter(([name]) => name.includes("-in-")).map(([, id]) => id),
    outIds: byName.filter(([name]) => name.includes("-out-")).map(([, id]) => id),
  };
}

/** A page's text once its loading placeholders are gone. */
async function settledText(page: Page): Promise<string> {
  await expect(page.locator("main")).toBeVisible();
  await expect(page.getByRole("status", { name: /^Loading/ })).toHaveCount(0, { timeout: 20_000 });
  return (await page.locator("main").innerText()) + (await page.content());
}

/**
 * Their console at this viewport: the list's count, every page in `pages` (or, when not given, in
 * the navigation, which a phone folds away), their cluster's page and two outside the scope.
 * Answers the pages it walked.
 */
async function walkAs(
  browser: Browser,
  fleet: Fleet,
  viewport: { width: number; height: number },
  pages?: string[],
): Promise<string[]> {
  const context = await browser.newContext({
    baseURL: BASE_URL,
    viewport,
    hasTouch: viewport.width < 500,
    reducedMotion: "reduce",
    storageState: { cookies: [], origins: [] },
  });
  try {
    await signIn(context.request, fleet.person);
    const page = await context.newPage();
    await page.goto("/clusters");
    // The list counts exactly the team's clusters, at any page size.
    await expect(page.getByTestId("clusters-total")).toHaveText(String(IN_SCOPE));
    // Every page the console offers them (read from the navigation the server built).
    const hrefs =
      pages ??
      (await page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link")
        .evaluateAll((links) => links.map((a) => a.getAttribute("href")!)));
    expect(hrefs.length).toBeGreaterThan(3);
    for (const href of [...hrefs, `/clusters/${fleet.inIds[0]}`]) {
      const res = await page.goto(href);
      expect(res?.status(), href).toBeLessThan(400);
      const text = await settledText(page);
      expect(text, `${href} names no cluster outside the team's scope`).not.toContain(`${fleet.run}-out-`);
    }
    // Outside the scope, by URL: the 404 page an unknown id gets, naming nothing.
    for (const id of [fleet.outIds[0]!, fleet.outIds[FLEET - IN_SCOPE - 1]!]) {
      const outside = await page.goto(`/clusters/${id}`);
      await expect(page.getByRole("heading", { name: "This cluster is not in the fleet" })).toBeVisible();
      expect(await page.content()).not.toContain(`${fleet.run}-out-`);
      const missing = await page.goto("/clusters/cl_no_such_cluster");
      expect(outside?.status()).toBe(missing?.status());
    }
    return hrefs;
  } finally {
    await context.close();
  }
}

test("a team operator's console at 300 clusters shows only the team's, on a desktop and on a phone", async ({
  browser,
  apiAs,
}) => {
  test.slow(); // 300 clusters seeded, then every page twice
  const fleet = await teamFleet(apiAs);
  const pages = await walkAs(browser, fleet, { width: 1280, height: 800 });
  await walkAs(browser, fleet, { width: 390, height: 844 }, pages);
});
