// Teams in the console: an admin creates one on the Teams page with a live preview of its scope and
// adds a member; that member, who has no fleet role, sees only the team's clusters, and a cluster
// outside the scope opened by URL is the 404 page (its name appears nowhere).
import { BASE_URL, SAME_ORIGIN, asRole, expect, signIn, test } from "../fixtures";
import { Shell } from "../pages/shell";

test.use(asRole("admin"));

test("an admin gives a team its clusters; its operator sees only those", async ({ page, browser, apiAs }) => {
  test.slow(); // a settings page with several lists, then a second person's console
  const suffix = Date.now().toString(36);
  const teamLabel = `pay-${suffix}`;
  const admin = await apiAs("admin");
  const ids: Record<string, string> = {};
  for (const [name, team] of [
    [`e2e-team-in-a-${suffix}`, teamLabel],
    [`e2e-team-in-b-${suffix}`, teamLabel],
    [`e2e-team-out-${suffix}`, `data-${suffix}`],
  ] as const) {
    const made = await admin.post("/api/v1/clusters", {
      data: { name, labels: { env: "staging", region: "eu", team } },
      headers: SAME_ORIGIN,
    });
    expect(made.status(), await made.text()).toBe(201);
    ids[name] = ((await made.json()) as { id: string }).id;
  }
  const person = { email: `e2e-team-op-${suffix}@fleet.test`, password: "e2e-team-op-password-1" };
  expect((await admin.post("/api/v1/users", { data: { ...person, role: "none" }, headers: SAME_ORIGIN })).status()).toBe(201);

  await page.goto("/teams");
  const section = page.locator("section", { has: page.getByRole("heading", { name: "Teams", exact: true }) });
  await section.getByRole("button", { name: "New team" }).click();
  const dialog = page.getByRole("dialog", { name: "New team" });
  await dialog.getByLabel("Name").fill(`payments-${suffix}`);
  await dialog.getByLabel("Scope (label selector)").fill("!legacy");
  await expect(dialog.getByTestId("scope-preview")).toContainText("at least one label value");
  await dialog.getByLabel("Scope (label selector)").fill(`team=${teamLabel}`);
  await expect(dialog.getByTestId("scope-preview")).toContainText(
    `Matches 2 clusters: e2e-team-in-a-${suffix}, e2e-team-in-b-${suffix}`,
  );
  await dialog.getByRole("button", { name: "Create team" }).click();
  await expect(dialog).toBeHidden();

  const card = page.locator(`section[data-team="payments-${suffix}"]`);
  await expect(card).toContainText("2 clusters");
  await card.getByLabel("Email").fill(person.email);
  await card.getByLabel("Role in the team").selectOption("operator");
  await card.getByRole("button", { name: "Add", exact: true }).click();
  await expect(card.locator(`tr[data-member="${person.email}"]`)).toContainText("User");

  // The member's own console, in a browser of their own.
  const context = await browser.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
  try {
    await signIn(context.request, person);
    const theirs = await context.newPage();
    await theirs.goto("/");
    await expect(theirs).toHaveURL(/\/clusters$/);
    await new Shell(theirs).expectNav(["Clusters", "Tokens", "Rollouts", "Versions", "Node pools", "Audit log", "Teams"]);
    const table = theirs.getByRole("table");
    await expect(table).toContainText(`e2e-team-in-a-${suffix}`);
    await expect(table).toContainText(`e2e-team-in-b-${suffix}`);
    await expect(table).not.toContainText(`e2e-team-out-${suffix}`);

    const outside = await theirs.goto(`/clusters/${ids[`e2e-team-out-${suffix}`]}`);
    await expect(theirs.getByRole("heading", { name: "This cluster is not in the fleet" })).toBeVisible();
    await expect(theirs).toHaveTitle(/Cluster not found/);
    const outsideHtml = await theirs.content();
    expect(outsideHtml).not.toContain(`e2e-team-out-${suffix}`);
    // Exactly what an id that never existed gets: nothing tells the two apart.
    const missing = await theirs.goto("/clusters/no-such-cluster");
    expect(outside?.status()).toBe(missing?.status());
    await expect(theirs.getByRole("heading", { name: "This cluster is not in the fleet" })).toBeVisible();

    await theirs.goto(`/clusters/${ids[`e2e-team-in-a-${suffix}`]}`);
    await expect(theirs.getByRole("heading", { name: `e2e-team-in-a-${suffix}` })).toBeVisible();
    const why = theirs
      .getByRole("list", { name: "Teams that can see this cluster" })
      .locator(`li[data-team="payments-${suffix}"]`);
    await expect(why).toContainText(`because team=${teamLabel}`);
    await expect(why).toContainText("0 team admins · 1 operator · 0 viewers");

    // Their team, read-only: an operator neither edits it nor manages its members.
    await theirs.goto("/teams");
    const own = theirs.locator(`section[data-team="payments-${suffix}"]`);
    await expect(own.locator(`tr[data-member="${person.email}"]`)).toContainText("operator");
    await expect(own.getByRole("button", { name: /Edit team|Remove/ })).toHaveCount(0);
    await expect(own.getByRole("form", { name: /Add a member/ })).toHaveCount(0);
  } finally {
    await context.close();
  }
});
