// A team viewer's console: the Overview counts their team's clusters only (a cluster outside the
// scope is named nowhere), and "Your access", reached from the user menu, says how they got their
// role, what their team's scope matches and what a team viewer may do. Someone with no role at all
// lands on that page instead of a 403.
import { BASE_URL, SAME_ORIGIN, asRole, expect, signIn, test } from "../fixtures";
import { Shell } from "../pages/shell";

test.use(asRole("admin"));

test("a team viewer's Overview counts their clusters only; their access page says why", async ({ browser, apiAs }) => {
  test.slow(); // a second person's console, two pages
  const suffix = Date.now().toString(36);
  const label = `ov-${suffix}`;
  const admin = await apiAs("admin");
  for (const [name, team] of [
    [`e2e-ov-in-a-${suffix}`, label],
    [`e2e-ov-in-b-${suffix}`, label],
    [`e2e-ov-out-${suffix}`, `other-${suffix}`],
  ] as const) {
    const made = await admin.post("/api/v1/clusters", { data: { name, labels: { env: "staging", team } }, headers: SAME_ORIGIN });
    expect(made.status(), await made.text()).toBe(201);
  }
  const team = await admin.post("/api/v1/teams", { data: { name: label, selector: `team=${label}` }, headers: SAME_ORIGIN });
  expect(team.status(), await team.text()).toBe(201);
  const teamId = ((await team.json()) as { id: string }).id;
  const person = { email: `e2e-ov-viewer-${suffix}@fleet.test`, password: "e2e-ov-viewer-password-1" };
  expect((await admin.post("/api/v1/users", { data: { ...person, role: "none" }, headers: SAME_ORIGIN })).status()).toBe(201);
  const added = await admin.post(`/api/v1/teams/${teamId}/members`, {
    data: { user: person.email, role: "viewer" },
    headers: SAME_ORIGIN,
  });
  expect(added.status(), await added.text()).toBe(201);

  const context = await browser.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
  try {
    await signIn(context.request, person);
    const page = await context.newPage();
    await page.goto("/");
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByTestId("overview-scope")).toContainText(label);
    await expect(page.getByTestId("count-total").getByTestId("count-value")).toHaveText("2");
    await expect(page.locator("main")).not.toContainText(`e2e-ov-out-${suffix}`);
    await expect(page.getByRole("heading", { name: /Registrations, last/ })).toHaveCount(0);
    const api = await context.request.get("/api/v1/overview");
    expect(api.status()).toBe(200);
    const body = (await api.json()) as { counts: { total: number }; registrations: unknown; scope: { teams: string[] } };
    expect(body.counts.total).toBe(2);
    expect(body.registrations).toBeNull();
    expect(body.scope.teams).toEqual([label]);

    // "Your access", from the user menu, by keyboard.
    const shell = new Shell(page);
    await shell.userMenuButton.focus();
    await page.keyboard.press("Enter");
    const item = page.getByRole("menuitem", { name: "Your access" });
    await expect(item).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/access$/);
    await expect(page.getByRole("heading", { level: 1, name: "Your access" })).toBeVisible();
    await expect(page.getByTestId("no-fleet-role")).toContainText("no fleet role");
    const card = page.getByTestId("access-team");
    await expect(card).toContainText(label);
    await expect(card).toContainText("team viewer");
    await expect(card).toContainText("you are a member, as viewer");
    await expect(card).toContainText(`team=${label}`);
    await expect(card.getByRole("link", { name: "matches 2 clusters now" })).toBeVisible();
    const reach = page.getByRole("list", { name: "What team viewer allows" });
    const overview = reach.locator("details", { hasText: "Overview" });
    await overview.locator("summary").focus();
    await page.keyboard.press("Enter");
    await expect(overview).toHaveAttribute("open", "");
    await expect(overview).toContainText("Fleet overview");
    await expect(page.getByRole("list", { name: "What needs a fleet role" })).toContainText("Groups");
  } finally {
    await context.close();
  }
});

test("someone signed in with no role at all lands on their access page, which says so", async ({ browser, apiAs }) => {
  const suffix = Date.now().toString(36);
  const admin = await apiAs("admin");
  const person = { email: `e2e-no-role-${suffix}@fleet.test`, password: "e2e-no-role-password-1" };
  expect((await admin.post("/api/v1/users", { data: { ...person, role: "none" }, headers: SAME_ORIGIN })).status()).toBe(201);
  const context = await browser.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
  try {
    await signIn(context.request, person);
    const page = await context.newPage();
    await page.goto("/");
    await expect(page).toHaveURL(/\/access$/);
    await expect(page.getByTestId("no-access")).toContainText("You have no role yet");
    await expect(page.getByTestId("no-access")).toContainText(person.email);
  } finally {
    await context.close();
  }
});
