// The Cluster API page. No management cluster runs in e2e: the source added here points at a
// closed loopback port (its watch's failure is what the page shows), and the CAPI Clusters a watch
// would have recorded are seeded in the database. Covered: the empty state, adding a source through
// the dialog (a refused kubeconfig said under its field, the kubeconfig never shown again), the
// clusters table with its steps and a failure, Retry now and Allow re-import, the cluster page's
// card, a viewer's read-only view, the dialog by keyboard, and deleting the source.
import net from "node:net";
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { okJson } from "../support/agent-process";
import { seedCapiClusters } from "../support/seed-capi";
import { BASE_URL, authFile } from "../support/run";
import { requiredLabels } from "../support/seed-clusters";

test.describe.configure({ mode: "serial" });

const RUN = Date.now().toString(36);
const SOURCE = `e2e-${RUN}`;
const TOKEN = `e2e-capi-token-${RUN}-never-shown`;
const NS = "capi-e2e";

const kubeconfig = (server: string) =>
  [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: mgmt",
    "  cluster:",
    `    server: ${server}`,
    "users:",
    "- name: fleet",
    "  user:",
    `    token: ${TOKEN}`,
    "contexts:",
    "- name: mgmt",
    "  context:",
    "    cluster: mgmt",
    "    user: fleet",
    "current-context: mgmt",
    "",
  ].join("\n");

/** A loopback port nothing listens on: the watch's every attempt is refused at once. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Source = { id: string; name: string };
async function sources(api: APIRequestContext): Promise<Source[]> {
  return (await okJson<{ items: Source[] }>(await api.get("/api/v1/cluster-api/sources"))).items;
}

let server = "";
/** The fleet cluster linked to capi-e2e/web-1 (pre-created, as the import would have). */
let webClusterId = "";

const card = (page: Page) => page.locator(`[data-capi-source="${SOURCE}"]`);
/** A row of the clusters table by the CAPI Cluster's name, in NS unless written namespace/name. */
const row = (page: Page, name: string) => page.locator(`tr[data-capi-cluster="${name.includes("/") ? name : `${NS}/${name}`}"]`);
const dialog = (page: Page) => page.getByRole("dialog");

test.beforeAll(async () => {
  server = `https://127.0.0.1:${await closedPort()}`;
});

test.afterAll(async ({ playwright }) => {
  // Leave no source behind: its watch would go on retrying a closed port for the rest of the run.
  const admin = await playwright.request.newContext({ baseURL: BASE_URL, storageState: authFile("admin") });
  for (const s of await sources(admin))
    if (s.name === SOURCE) await admin.delete(`/api/v1/cluster-api/sources/${s.id}`, { headers: SAME_ORIGIN });
  await admin.dispose();
});

test.describe("as an admin", () => {
  test.use(asRole("admin"));

  test("the empty state, then a source added through the dialog: refusals under the kubeconfig, never shown again", async ({
    page,
    apiAs,
  }) => {
    const admin = await apiAs("admin");
    // A run's first look: no source yet (none of the other specs adds one).
    expect((await sources(admin)).filter((s) => s.name !== SOURCE)).toEqual([]);
    await page.goto("/cluster-api");
    await expect(page.getByRole("heading", { name: "Cluster API", level: 1 })).toBeVisible();
    await expect(page.getByText("No management clusters yet")).toBeVisible();
    await expect(page.getByText("A source is a Cluster API management cluster the fleet watches")).toBeVisible();
    await page.getByRole("button", { name: "Add a management cluster" }).click();

    const d = dialog(page);
    await expect(d.getByRole("heading", { name: "Add a management cluster" })).toBeVisible();
    await expect(d.getByLabel("Name", { exact: true })).toBeFocused();
    await d.getByLabel("Name", { exact: true }).fill(SOURCE);
    const kube = d.getByLabel("Kubeconfig", { exact: true });
    await kube.fill(kubeconfig(server.replace("https:", "http:")));
    await d.getByRole("button", { name: "Add management cluster" }).click();
    // The server's 400 `details`, under the field they name.
    await expect(d.locator("#capi-source-kubeconfig-error")).toContainText("is not https");
    await expect(kube).toHaveAttribute("aria-invalid", "true");

    await kube.fill(kubeconfig(server));
    await d.getByRole("button", { name: "Add management cluster" }).click();
    await expect(d.locator("#capi-source-kubeconfig-error")).toContainText("loopback");
    await d.getByLabel("Allow private addresses").check();
    await expect(d.locator("#capi-source-kubeconfig-error")).toHaveCount(0);
    await d.getByLabel("Namespaces").fill(`${NS}, team-a`);
    await d.getByRole("button", { name: "Add a mapping" }).click();
    await d.getByLabel("Mapping 1: CAPI label").fill("cluster.x-k8s.io/environment");
    await d.getByLabel("Mapping 1: fleet label").fill("env");
    await d.getByLabel("Fixed labels").fill("region=eu-west-1\nnot a label");
    await d.getByRole("button", { name: "Add management cluster" }).click();
    await expect(d.locator("#capi-source-fixed-labels-error")).toContainText('Line 2: "not a label" is not key=value.');
    await d.getByLabel("Fixed labels").fill("region=eu-west-1");
    await d.getByRole("button", { name: "Add management cluster" }).click();

    await expect(d).toHaveCount(0);
    await expect(page.getByRole("status").filter({ hasText: `Added ${SOURCE}` })).toBeVisible();
    const c = card(page);
    await expect(c.getByText(server, { exact: true })).toBeVisible();
    await expect(c.getByText(`${NS}, team-a`)).toBeVisible();
    await expect(c.getByText("cluster.x-k8s.io/environment → env")).toBeVisible();
    await expect(c.getByText("region=eu-west-1")).toBeVisible();
    await expect(c.getByText("fleet-registry/auto-register=true")).toBeVisible();
    // The kubeconfig never comes back: not on the page, not in the edit dialog, not from the API.
    await expect(page.locator("body")).not.toContainText(TOKEN);
    await c.getByRole("button", { name: `Edit ${SOURCE}` }).click();
    await expect(dialog(page).getByLabel("Replace the kubeconfig (optional)")).toHaveValue("");
    await expect(dialog(page).getByLabel("Namespaces")).toHaveValue(`${NS}, team-a`);
    await expect(dialog(page)).not.toContainText(TOKEN);
    await page.keyboard.press("Escape");
    await expect(dialog(page)).toHaveCount(0);
    expect(await (await admin.get("/api/v1/cluster-api/sources")).text()).not.toContain(TOKEN);
    // Nothing listens there: the watch's failure is the card's first, prominent line.
    await expect(c.getByTestId("capi-source-error")).toContainText("could not be reached", { timeout: 20_000 });
  });

  test("the clusters table: steps, a failure, Retry now, Allow re-import, and the cluster page's card", async ({
    page,
    apiAs,
  }) => {
    const admin = await apiAs("admin");
    const source = (await sources(admin)).find((s) => s.name === SOURCE)!;
    const labels = Object.fromEntries((await requiredLabels(admin)).map((k) => [k, "e2e"]));
    const precreate = async (name: string) =>
      (await okJson<{ id: string }>(await admin.post("/api/v1/clusters", { data: { name, labels }, headers: SAME_ORIGIN }))).id;
    webClusterId = await precreate(`${SOURCE}-${NS}-web-1`);
    const dbClusterId = await precreate(`${SOURCE}-${NS}-db-1`);
    const conditions = [
      { type: "InfrastructureReady", status: "True" as const },
      { type: "ControlPlaneInitialized", status: "False" as const, reason: "WaitingForControlPlane" },
    ];
    await seedCapiClusters(RUN, source.id, [
      {
        namespace: NS,
        name: "web-1",
        fleetName: `${SOURCE}-${NS}-web-1`,
        clusterId: webClusterId,
        step: "provisioning",
        capiPhase: "Provisioning",
        conditions,
        infrastructureProvider: "DockerCluster",
        kubernetesVersion: "v1.31.2",
        topologyClass: "quick-start",
        createdSecondsAgo: 300,
      },
      {
        namespace: NS,
        name: "db-1",
        fleetName: `${SOURCE}-${NS}-db-1`,
        clusterId: dbClusterId,
        step: "joining",
        capiPhase: "Provisioned",
        controlPlaneInitialized: true,
        conditions: [...conditions.slice(0, 1), { type: "ControlPlaneInitialized", status: "True" }],
        infrastructureProvider: "AWSCluster",
        kubernetesVersion: "v1.30.6",
        error: {
          message: `kubeconfig Secret ${NS}/db-1-kubeconfig not found`,
          secondsAgo: 60,
          attempts: 3,
          nextInSeconds: 240,
        },
      },
      {
        namespace: NS,
        name: "old-1",
        fleetName: `${SOURCE}-${NS}-old-1`,
        step: "excluded",
        // Opted out since: clearing the mark brings nothing into the fleet.
        optedIn: false,
        capiPhase: "Provisioned",
        excluded: { by: "someone@fleet.test", secondsAgo: 3600 },
      },
      {
        namespace: "default",
        name: "scratch",
        fleetName: `${SOURCE}-default-scratch`,
        step: "not-opted-in",
        capiPhase: "Pending",
      },
    ]);

    await page.goto("/cluster-api");
    const web = row(page, "web-1");
    await expect(web.getByText("provisioning", { exact: true })).toBeVisible();
    await expect(web.getByText("Control plane not initialised yet.")).toBeVisible();
    await expect(web.getByRole("link", { name: `${SOURCE}-${NS}-web-1` })).toHaveAttribute("href", `/clusters/${webClusterId}`);
    await expect(web.locator('[data-condition="InfrastructureReady"]')).toHaveAttribute("data-status", "True");
    await expect(web.locator('[data-condition="ControlPlaneInitialized"]')).toHaveAttribute("data-status", "False");
    await expect(web.locator('[data-condition="ControlPlaneReady"]')).toHaveAttribute("data-status", "Unknown");
    await expect(web).toContainText("DockerCluster");
    await expect(web).toContainText("v1.31.2");
    await expect(web).toContainText("class quick-start");
    await expect(web).toContainText("5 min");
    const db = row(page, "db-1");
    await expect(db.getByTestId("capi-cluster-error")).toContainText(`kubeconfig Secret ${NS}/db-1-kubeconfig not found`);
    await expect(db.getByTestId("capi-cluster-error")).toContainText("3 attempts · next try in");
    await expect(row(page, "default/scratch").getByText("not opted in", { exact: true })).toBeVisible();
    await expect(row(page, "default/scratch").getByRole("button")).toHaveCount(0);
    await expect(card(page).getByRole("button", { name: "1 joining: show them" })).toBeVisible();
    const { violations } = await new AxeBuilder({ page }).include("main").analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

    // A step's count on the card filters the table to it.
    await card(page).getByRole("button", { name: "1 joining: show them" }).click();
    await expect(page.getByLabel("Step", { exact: true })).toHaveValue("joining");
    await expect(page.locator("tr[data-capi-cluster]")).toHaveCount(1);
    await page.getByRole("button", { name: "Show all" }).click();
    await expect(page.locator("tr[data-capi-cluster]")).toHaveCount(4);

    // Retry now: the importer takes the step at once and meets the closed port (a new failure).
    await db.getByRole("button", { name: `Retry now ${NS}/db-1` }).click();
    await expect(dialog(page)).toContainText("kubeconfig Secret capi-e2e/db-1-kubeconfig not found");
    await dialog(page).getByRole("button", { name: "Retry now" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Retrying ${NS}/db-1 now.` })).toBeVisible();

    // Allow re-import: the mark cleared, nothing left to allow.
    const old = row(page, "old-1");
    await expect(old).toContainText("Removed by someone@fleet.test");
    await old.getByRole("button", { name: `Allow re-import of ${NS}/old-1` }).click();
    await expect(dialog(page)).toContainText("someone@fleet.test removed it from the registry");
    await dialog(page).getByRole("button", { name: "Allow re-import" }).click();
    await expect(page.getByRole("status").filter({ hasText: `${NS}/old-1 may be imported again.` })).toBeVisible();
    await expect(old.getByRole("button")).toHaveCount(0);

    // The importer's next run takes both on (the page follows it): a new failure, and no longer excluded.
    await expect(db.getByTestId("capi-cluster-error")).toContainText("could not be reached", { timeout: 20_000 });
    await expect(old.getByText("not opted in", { exact: true })).toBeVisible({ timeout: 20_000 });

    const audit = await okJson<{ items: { action: string }[] }>(await admin.get("/api/v1/audit?action=clusterApiCluster."));
    expect(audit.items.map((e) => e.action)).toEqual(
      expect.arrayContaining(["clusterApiCluster.retry", "clusterApiCluster.clearMark"]),
    );

    // The cluster page says where an imported cluster comes from; one not imported shows nothing of it.
    await page.goto(`/clusters/${webClusterId}`);
    const origin = page.getByTestId("capi-origin");
    await expect(origin).toContainText(SOURCE);
    await expect(origin).toContainText(`${NS}/web-1`);
    await expect(origin).toContainText("Control plane not initialised yet.");
    await expect(origin.locator('[data-condition="InfrastructureReady"]')).toHaveAttribute("data-status", "True");
    const other = await precreate(`e2e-${RUN}-not-imported`);
    const asked = page.waitForResponse((r) => r.url().endsWith(`/api/v1/clusters/${other}/cluster-api`));
    await page.goto(`/clusters/${other}`);
    expect(await (await asked).json()).toEqual({ item: null });
    await expect(page.getByRole("heading", { name: "Health and versions" })).toBeVisible();
    await expect(page.getByTestId("capi-origin")).toHaveCount(0);
  });

  test("the source dialog is reached in order by keyboard, and Escape gives the focus back", async ({ page }) => {
    await page.goto("/cluster-api");
    const add = page.getByRole("button", { name: "Add a management cluster" });
    await add.focus();
    await page.keyboard.press("Enter");
    const d = dialog(page);
    const order: Locator[] = [
      d.getByLabel("Name", { exact: true }),
      d.getByLabel("Kubeconfig", { exact: true }),
      d.getByLabel("Allow private addresses"),
      d.getByLabel("Namespaces"),
      d.getByLabel("Opt-in label"),
      d.getByRole("button", { name: "Add a mapping" }),
      d.getByLabel("Fixed labels"),
      d.getByLabel("Registrations wait for approval"),
      d.getByLabel("Agent image"),
      d.getByLabel("HTTPS proxy"),
      d.getByLabel("NO_PROXY"),
      d.getByRole("button", { name: "Cancel" }),
      d.getByRole("button", { name: "Add management cluster" }),
    ];
    await expect(order[0]!).toBeFocused();
    for (const next of order.slice(1)) {
      await page.keyboard.press("Tab");
      await expect(next).toBeFocused();
    }
    // The mapping rows are keyboard-made too: Space on "Add a mapping" puts the focus-able row in order.
    await d.getByRole("button", { name: "Add a mapping" }).focus();
    await page.keyboard.press("Space");
    await page.keyboard.press("Shift+Tab");
    await expect(d.getByRole("button", { name: "Remove mapping 1" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(d).toHaveCount(0);
    await expect(add).toBeFocused();
  });
});

test.describe("as a viewer", () => {
  test.use(asRole("viewer"));

  test("reads the sources and the clusters, with nothing to edit, retry or allow", async ({ page }) => {
    await page.goto("/cluster-api");
    await expect(card(page).getByText(server, { exact: true })).toBeVisible();
    await expect(row(page, "db-1")).toBeVisible();
    await expect(page.getByText("Only a fleet admin can add, change or delete a source.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Add a management cluster" })).toHaveCount(0);
    await expect(card(page).getByRole("button", { name: /^(Edit|Pause|Delete)/ })).toHaveCount(0);
    await expect(page.locator("tr[data-capi-cluster]").getByRole("button")).toHaveCount(0);
  });
});

test.describe("as an admin, at the end", () => {
  test.use(asRole("admin"));

  test("deleting the source says its clusters stay and the management cluster is left alone", async ({ page }, testInfo) => {
    await page.goto("/cluster-api");
    await expect(row(page, "web-1")).toBeVisible();
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.screenshot({ path: "docs/screenshots/cluster-api-light.png", fullPage: true });
    await testInfo.attach("cluster-api-light", { path: "docs/screenshots/cluster-api-light.png", contentType: "image/png" });

    await card(page)
      .getByRole("button", { name: `Delete ${SOURCE}` })
      .click();
    const d = dialog(page);
    await expect(d).toContainText("The 2 clusters imported from it stay in the fleet.");
    await expect(d).toContainText("Nothing changes on the management cluster");
    await d.getByRole("button", { name: "Delete source" }).click();
    await expect(d).toHaveCount(0);
    await expect(page.getByText("No management clusters yet")).toBeVisible();
    // Still in the fleet.
    await page.goto(`/clusters/${webClusterId}`);
    await expect(page.getByRole("heading", { name: `${SOURCE}-${NS}-web-1`, level: 1 })).toBeVisible();
  });
});
