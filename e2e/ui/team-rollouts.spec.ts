// A team operator's rollouts in the console: the Rollouts pages open for someone with no fleet
// role, the form plans within the team's scope (no fleet groups to pick from; the matches outside
// the scope counted and left out), the rollout belongs to the team, and the fleet's rollout opened
// by URL is the 404 page, exactly as an id that never existed.
import type { APIRequestContext } from "@playwright/test";
import { BASE_URL, SAME_ORIGIN, asRole, expect, signIn, test } from "../fixtures";
import { Shell } from "../pages/shell";
import { NAV } from "../support/navigation";

test.use(asRole("admin"));

async function made(res: Awaited<ReturnType<APIRequestContext["post"]>>): Promise<{ id: string }> {
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: string };
}

test("a team operator starts a rollout of their team's clusters only; the fleet's reads 404", async ({ browser, apiAs }) => {
  test.slow(); // a second person's console, the form's live plan, then two detail pages
  const suffix = Date.now().toString(36);
  const admin = await apiAs("admin");
  const post = (url: string, data: unknown) => admin.post(url, { data, headers: SAME_ORIGIN });
  // Three clusters of this run (labelled wave=<suffix>): two in the team's scope, one outside it.
  const names = { a: `e2e-tr-in-a-${suffix}`, b: `e2e-tr-in-b-${suffix}`, out: `e2e-tr-out-${suffix}` };
  for (const [name, team] of [
    [names.a, `pay-${suffix}`],
    [names.b, `pay-${suffix}`],
    [names.out, `data-${suffix}`],
  ] as const)
    await made(await post("/api/v1/clusters", { name, labels: { wave: suffix, team } }));
  const team = `payments-${suffix}`;
  const teamId = (await made(await post("/api/v1/teams", { name: team, selector: `team=pay-${suffix}` }))).id;
  const person = { email: `e2e-tr-op-${suffix}@fleet.test`, password: "e2e-team-op-password-1" };
  await made(await post("/api/v1/users", { ...person, role: "none" }));
  await made(await post(`/api/v1/teams/${teamId}/members`, { user: person.email, role: "operator" }));
  const fleetRollout = await made(
    await post("/api/v1/rollouts", {
      name: `e2e-tr-fleet-${suffix}`,
      targetVersion: "1.5.0",
      selector: `team=data-${suffix}`,
      stages: [{ name: "all", percent: 100 }],
    }),
  );

  const context = await browser.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
  let teamRolloutId = "";
  try {
    await signIn(context.request, person);
    const page = await context.newPage();
    await page.goto("/rollouts");
    await new Shell(page).expectNav(NAV.teamOperator);
    await page.getByRole("link", { name: "New rollout" }).click();

    // Groups are the fleet's: the team picks by selector, and the form says whose rollout it is.
    await expect(page.getByRole("radio", { name: "By label selector" })).toBeChecked();
    await expect(page.getByRole("radio", { name: "By cluster group" })).toHaveCount(0);
    await expect(page.getByTestId("rollout-team-note")).toContainText(`A rollout of team ${team}`);
    await page.getByLabel("Rollout name").fill(`e2e-tr-${suffix}`);
    await page.getByLabel("Target agent version").fill("1.5.0");
    await page.getByRole("combobox", { name: "Label selector" }).fill(`wave=${suffix}`);
    await expect(page.getByTestId("matched-clusters")).toContainText("2 clusters match now", { timeout: 15_000 });
    await expect(page.getByTestId("matched-left-out")).toContainText(`in team ${team}'s scope (1 more outside it, left out)`);
    await expect(page.getByTestId("form-plan").getByTestId("plan-scope")).toContainText(
      "1 matching cluster outside it is left out",
    );

    await page.getByRole("button", { name: "Start rollout…" }).click();
    const confirm = page.getByRole("dialog");
    await expect(confirm.getByTestId("plan-clusters")).toHaveText("2 clusters");
    await expect(confirm.getByTestId("plan-scope")).toContainText("1 matching cluster outside it is left out");
    await confirm.getByRole("button", { name: "Start rollout", exact: true }).click();
    await expect(page).toHaveURL(/\/rollouts\/[^/]+$/);
    teamRolloutId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    await expect(page.getByRole("heading", { level: 1, name: `e2e-tr-${suffix}` })).toBeVisible();
    await expect(page.getByTestId("rollout-team").first()).toContainText(`team ${team}`);
    const rows = page.getByRole("table", { name: "Clusters in this rollout by stage" });
    await expect(rows).toContainText(names.a);
    await expect(rows).toContainText(names.b);
    expect(await page.content()).not.toContain(names.out);

    // Their list: their team's rollout, not the fleet's.
    await page.goto("/rollouts");
    await expect(page.locator(`tr[data-rollout="e2e-tr-${suffix}"]`)).toContainText(`team ${team}`);
    await expect(page.locator(`tr[data-rollout="e2e-tr-fleet-${suffix}"]`)).toHaveCount(0);

    // The fleet's rollout by URL: the 404 page, as for an id that never existed.
    const outside = await page.goto(`/rollouts/${fleetRollout.id}`);
    await expect(page.getByRole("heading", { name: "No rollout with this id" })).toBeVisible();
    await expect(page).toHaveTitle(/Rollout not found/);
    expect(await page.content()).not.toContain(`e2e-tr-fleet-${suffix}`);
    const missing = await page.goto("/rollouts/no-such-rollout");
    expect(outside?.status()).toBe(missing?.status());
  } finally {
    await context.close();
    for (const id of [fleetRollout.id, teamRolloutId].filter(Boolean))
      await admin.post(`/api/v1/rollouts/${id}/actions`, { data: { action: "abort" }, headers: SAME_ORIGIN });
  }
});
