// Relative times on a hard load: every console page is rendered on the server against the instant
// its data was read, hydrates against that same instant (no mismatch, so React keeps the server's
// HTML) and then ticks with the browser's clock.
//
// A clock frozen when the server started would be wrong by the server's uptime, which a test
// cannot cheaply make long. Instead each seeded time sits a hair on the far side of a formatting
// boundary from the moment the pages were first rendered (the latest a frozen clock could be):
// read at any later instant it is across the boundary ("10 min", "3650 d", "in 9 min 5x s"), read
// against an earlier clock it is not ("9 min 59 s", "3649 d 23 h", "in 10 min").
import type { Page } from "@playwright/test";
import { asRole, expect, SAME_ORIGIN, test } from "../fixtures";
import { okJson } from "../support/agent-process";
import { consolePages, openConsolePage } from "../support/console-pages";
import { execSql, sqlTimestamp } from "../support/database";
import { saveScreenshots } from "../support/screenshots";
import { seedClusters } from "../support/seed-clusters";

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

/** The page's text as the server sent it, before any JavaScript ran. */
async function serverText(page: Page, path: string): Promise<string> {
  const res = await page.request.get(path);
  expect(res.status(), `${path} answers`).toBeLessThan(400);
  return (await res.text())
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ");
}

/**
 * The text that follows each mention of `name` in `text` (its rows and cards), joined: a name may
 * come first in another card (the Overview lists a cluster missing labels before the NotReady ones).
 */
function after(text: string, name: string): string {
  const slices: string[] = [];
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) slices.push(text.slice(at, at + 600));
  expect(slices.length, `${name} is on the page`).toBeGreaterThan(0);
  return slices.join(" ¦ ");
}

test.describe("times on a hard load", () => {
  test.use(asRole("admin"));
  // A browser far from the server in locale and zone: what either prints differently ("1.000",
  // a local date) would not hydrate as rendered.
  test.use({ locale: "de-DE", timezoneId: "Pacific/Auckland" });

  test("every console page renders its times against the request's clock and hydrates without a mismatch", async ({
    page,
    apiAs,
  }, testInfo) => {
    test.setTimeout(180_000);
    const run = `times-${Date.now().toString(36)}`;
    const admin = await apiAs("admin");
    const selector = `e2e-times=${run}`;

    // The seeded objects, their times set below once every page has been rendered once.
    const cluster = `e2e-${run}-quiet`;
    const ids = await seedClusters(run, [
      { name: cluster, labels: { "e2e-times": run }, status: "NotReady", heardSecondsAgo: 3600 },
    ]);
    const clusterId = ids[cluster]!;
    const live = await okJson<{ id: string }>(
      await admin.post("/api/v1/registration-tokens", { data: { name: `${run}-live` }, headers: SAME_ORIGIN }),
    );
    const revoked = await okJson<{ id: string }>(
      await admin.post("/api/v1/registration-tokens", { data: { name: `${run}-revoked` }, headers: SAME_ORIGIN }),
    );
    await okJson(await admin.delete(`/api/v1/registration-tokens/${revoked.id}`, { headers: SAME_ORIGIN }));
    const group = `e2e-${run}`;
    await okJson(await admin.post("/api/v1/groups", { data: { name: group, selector }, headers: SAME_ORIGIN }));
    const policy = `e2e-${run}`;
    const created = await okJson<{ id: string }>(
      await admin.post("/api/v1/policies", { data: { name: policy, content: {} }, headers: SAME_ORIGIN }),
    );
    const rollout = await okJson<{ id: string }>(
      await admin.post("/api/v1/rollouts", {
        data: { name: `e2e ${run}`, targetVersion: "1.5.0", selector, waitSeconds: 0 },
        headers: SAME_ORIGIN,
      }),
    );
    const pages = consolePages({ clusterId, rolloutId: rollout.id, group });

    // Every page rendered once: a clock kept from then on is now behind the data's times.
    for (const { path } of pages) await serverText(page, path);
    const rendered = Date.now();
    const at = (ms: number) => sqlTimestamp(new Date(rendered + ms));
    // NotReady for ten years: older than any other test's cluster, so it heads the Overview's
    // "NotReady the longest" card (five shown) whatever ran before.
    await execSql(`UPDATE "Cluster" SET "lastHeartbeatAt" = ?, "statusChangedAt" = ? WHERE "id" = ?`, [
      at(-(10 * MIN - 500)),
      at(-(3650 * DAY - 500)),
      clusterId,
    ]);
    await execSql(`UPDATE "RegistrationToken" SET "expiresAt" = ? WHERE "id" = ?`, [at(10 * MIN + 500), live.id]);
    await execSql(`UPDATE "RegistrationToken" SET "revokedAt" = ? WHERE "id" = ?`, [at(-(10 * MIN - 500)), revoked.id]);
    await execSql(`UPDATE "ClusterGroup" SET "updatedAt" = ? WHERE "name" = ?`, [at(-(10 * MIN - 500)), group]);
    await execSql(`UPDATE "PolicyRevision" SET "createdAt" = ? WHERE "policyId" = ?`, [at(-(10 * MIN - 500)), created.id]);
    // Past the boundaries: any clock read from here on shows the times across them.
    await page.waitForTimeout(Math.max(0, rendered + 1000 - Date.now()));

    // Per page, the seeded object whose row or card to read, and what it must say there.
    const clusterList = `/clusters?selector=${encodeURIComponent(selector)}`;
    // Read any time after the boundary, a slow run included: "10 min" up to "59 min", never "9 min 59 s".
    const expected: Record<string, { path?: string; near: string; shows: RegExp[] }[]> = {
      overview: [{ near: cluster, shows: [/no heartbeat for 3650 d\b/] }],
      clusters: [{ path: clusterList, near: cluster, shows: [/no heartbeat for [1-5]\d min\b/, /\b[1-5]\d min ago/] }],
      "cluster detail": [{ near: cluster, shows: [/no heartbeat for [1-5]\d min\b/] }],
      tokens: [
        { near: `${run}-live`, shows: [/\bin \d min\b/] },
        { near: `${run}-revoked`, shows: [/revoked [1-5]\d min ago/] },
      ],
      groups: [{ near: group, shows: [/\b[1-5]\d min ago/] }],
      policies: [{ near: policy, shows: [/published [1-5]\d min ago/] }],
    };

    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && /hydrat|#41[89]|#42[35]/i.test(m.text())) errors.push(`${page.url()}: ${m.text()}`);
    });
    for (const { name, path: pagePath } of pages) {
      const checks = expected[name] ?? [];
      const path = checks[0]?.path ?? pagePath;
      // As the server rendered it, before any JavaScript ran; asked again for a few seconds, as a
      // server busy with the other specs' work may read the seeded times a moment late. A clock
      // frozen before the seeding never crosses the boundary, however long. (The cluster stays
      // NotReady only while the fleet's threshold is under ten minutes: settings-audit.spec keeps it so.)
      for (const c of checks)
        for (const re of c.shows)
          await expect
            .poll(async () => after(await serverText(page, path), c.near), {
              message: `${path} from the server`,
              timeout: 15_000,
            })
            .toMatch(re);
      // In the browser: hydrated (without a mismatch, checked below) and showing the same.
      await openConsolePage(page, path);
      const shown = (await page.locator("main").innerText()).replace(/\s+/g, " ");
      for (const c of checks) for (const re of c.shows) expect(after(shown, c.near), `${path} once hydrated`).toMatch(re);
    }
    expect(errors, errors.join("\n")).toEqual([]);
    await page.goto("/tokens");
    await saveScreenshots(page, testInfo, "tokens-times");
  });
});
