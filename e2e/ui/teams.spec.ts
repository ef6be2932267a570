// Teams in the console: an admin creates one on the Teams page with a live preview of its scope and
// adds a member; that member, who has no fleet role, sees only the team's clusters, saves the
// team's views, is told a drain of all of them needs the team's admin, and a cluster outside the
// scope opened by URL is the 404 page (its name appears nowhere).
import { BASE_URL, SAME_ORIGIN, asRole, expect, signIn, test } from "../fixtures";
import { Shell } from "../pages/shell";
import { NAV } from "../support/navigation";

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
    // Nothing the console asks for on their behalf is refused (the fleet's groups are not asked for).
    const refused: string[] = [];
    theirs.on("response", (r) => {
      if (r.status() === 403) refused.push(r.url());
    });
    await theirs.goto("/");
    await expect(theirs.getByTestId("overview-scope")).toContainText(`payments-${suffix}`);
    await new Shell(theirs).expectNav(NAV.teamOperator);
    await theirs.goto("/clusters");
    const table = theirs.getByRole("table");
    await expect(table).toContainText(`e2e-team-in-a-${suffix}`);
    await expect(table).toContainText(`e2e-team-in-b-${suffix}`);
    await expect(table).not.toContainText(`e2e-team-out-${suffix}`);
    await expect(theirs.getByRole("combobox", { name: "Group" })).toHaveCount(0);

    // Their saved view is the team's; picking every one of their clusters is the whole of their scope.
    const views = theirs.getByRole("region", { name: "Saved views" });
    await views.getByLabel("Name of the new view").fill(`ours-${suffix}`);
    await views.getByRole("button", { name: "Save view" }).click();
    await expect(views.getByRole("link", { name: new RegExp(`ours-${suffix}`) })).toContainText(`payments-${suffix}`);
    for (const name of [`e2e-team-in-a-${suffix}`, `e2e-team-in-b-${suffix}`])
      await theirs.getByRole("checkbox", { name: `Select ${name}` }).check();
    await theirs.getByRole("button", { name: "Drain and deregister…" }).click();
    const drain = theirs.getByRole("dialog", { name: "Start drain-then-deregister" });
    await expect(drain.getByTestId("bulk-guard")).toContainText("every cluster of your teams (2)");
    await expect(drain.getByTestId("bulk-guard")).toContainText("Only an admin of these clusters' team can do this");
    await drain.getByRole("button", { name: "Close" }).click();
    expect(refused, "requests refused with 403").toEqual([]);

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

    // Their approval queue opens (the API bounds it to the team's requests); the webhooks page is a team admin's.
    expect((await theirs.goto("/registration-requests"))?.status()).toBe(200);
    await expect(theirs.getByRole("heading", { name: "Registration approvals" })).toBeVisible();
    await expect(theirs.getByText("No cluster is waiting for approval")).toBeVisible();
    expect(refused, "the queue asks for nothing it may not read").toEqual([]);
    expect((await theirs.goto("/webhooks"))?.status()).toBe(403);

    // Made the team's admin, they manage the team's webhook subscriptions on their own page.
    const team = (await (await admin.get("/api/v1/teams")).json()) as {
      items: { id: string; name: string; members: { id: string; name: string }[] }[];
    };
    const mine = team.items.find((t) => t.name === `payments-${suffix}`)!;
    const member = mine.members.find((m) => m.name === person.email)!;
    const promoted = await admin.patch(`/api/v1/teams/${mine.id}/members/${member.id}`, {
      data: { role: "admin" },
      headers: SAME_ORIGIN,
    });
    expect(promoted.status(), await promoted.text()).toBe(200);
    await theirs.goto("/webhooks");
    await expect(theirs.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
    await new Shell(theirs).expectNav(NAV.teamAdmin);
    await expect(theirs.getByRole("checkbox", { name: /Allow webhooks to private addresses/ })).toHaveCount(0);
    await theirs.getByRole("button", { name: "New webhook" }).click();
    const hookDialog = theirs.getByRole("dialog", { name: "New webhook" });
    await expect(hookDialog.getByLabel("Owned by")).toHaveValue(mine.id);
    await expect(hookDialog.getByLabel("Owned by").locator("option")).toHaveText([`Team payments-${suffix}`]);
    // Only the events that can reach a team's subscription are offered.
    await expect(hookDialog.getByText("Rollout paused")).toHaveCount(0);
    await expect(hookDialog.getByText("Cluster NotReady")).toBeVisible();
  } finally {
    await context.close();
  }
});
