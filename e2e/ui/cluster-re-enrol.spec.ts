// Re-enrol on a cluster's page: an operator mints a token bound to the cluster, sees it once with
// the agent command for that cluster, and the token registers that cluster (and no other); a
// viewer sees no Re-enrol and the API refuses the viewer's bound mint. Pre-creating a cluster on
// the Clusters page shows its claim token once; only that token claims it.
import { randomBytes } from "node:crypto";
import { registerThroughAgentPort } from "../support/agent-api";
import { asRole, expect, expectApiError, SAME_ORIGIN, test } from "../fixtures";

type Token = { id: string; name: string; clusterId: string | null; usedClusters: number };

test.describe("as an operator", () => {
  test.use(asRole("operator"));

  test("Re-enrol mints a bound token shown once beside the agent command; it re-registers this cluster only", async ({
    page,
    apiAs,
    playwright,
  }) => {
    // Two registrations over TLS and a page with charts: more than the default on a busy machine.
    test.setTimeout(90_000);
    const operator = await apiAs("operator");
    const name = `e2e-reenrol-${randomBytes(3).toString("hex")}`;
    const first = await operator.post("/api/v1/registration-tokens", { data: { name: `for ${name}` }, headers: SAME_ORIGIN });
    expect(first.status()).toBe(201);
    const registered = await registerThroughAgentPort(playwright, ((await first.json()) as { token: string }).token, name, {
      env: "e2e",
      region: "reenrol",
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const id = registered.body.clusterId!;

    await page.goto(`/clusters/${id}`);
    // The first visit builds the page's data: allow a busy machine its time.
    await expect(page.getByRole("heading", { name, exact: true })).toBeVisible({ timeout: 30_000 });
    await page.getByRole("button", { name: "Re-enrol…" }).click();
    const dialog = page.getByRole("dialog", { name: `Re-enrol ${name}` });
    await expect(dialog).toContainText("it lost its key");
    await dialog.getByText("2 h", { exact: true }).click();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/api/v1/registration-tokens") && r.request().method() === "POST"),
      dialog.getByRole("button", { name: "Mint re-enrolment token" }).click(),
    ]);
    expect(response.status()).toBe(201);
    expect(response.headers()["cache-control"]).toContain("no-store");

    const panel = page.getByRole("region", { name: /minted$/ });
    await expect(panel).toBeVisible();
    await expect(panel).toContainText("you won’t see it again");
    await expect(panel).toContainText(`register the cluster ${name} (and no other) once`);
    const token = (await page.getByTestId("minted-token").innerText()).trim();
    expect(token).toMatch(/^frt_[a-z0-9]+_[A-Za-z0-9_-]{20,}$/);
    await expect(panel.getByLabel("Cluster name")).toHaveValue(name);
    await expect(panel.getByLabel("Cluster name")).not.toBeEditable();
    await expect(panel.locator("#agent-command")).toContainText(`--name ${name}`);
    await expect(panel.locator("#agent-manifest")).toContainText(token);

    await panel.getByRole("button", { name: "I’ve saved the token — close" }).click();
    await expect(page.getByTestId("minted-token")).toHaveCount(0);
    await expect(page.getByText(token)).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Re-enrol…" })).toBeFocused();

    // The API confirms the binding; the list never shows the secret again.
    const list = (await (await operator.get("/api/v1/registration-tokens")).json()) as { items: (Token & { token?: string })[] };
    const bound = list.items.find((t) => t.clusterId === id);
    expect(bound).toMatchObject({ name: `re-enrol ${name}`, clusterId: id, usedClusters: 0 });
    expect(bound!.token).toBeUndefined();
    const audit = (await (await operator.get(`/api/v1/audit?action=token.mint&target=${bound!.id}`)).json()) as {
      items: { details: { boundToCluster?: { id: string; name: string } } }[];
    };
    expect(audit.items[0]?.details.boundToCluster).toEqual({ id, name });

    // The token brings this cluster back with a new key (same id), and registers no other name.
    const elsewhere = await registerThroughAgentPort(playwright, token, `${name}-other`, { env: "e2e", region: "reenrol" });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error).toBe("cluster_conflict");
    const back = await registerThroughAgentPort(playwright, token, name);
    expect(back.status, JSON.stringify(back.body)).toBe(201);
    expect(back.body.clusterId).toBe(id);
    const detail = (await (await operator.get(`/api/v1/clusters/${id}`)).json()) as { labels: Record<string, string> };
    expect(detail.labels).toEqual({ env: "e2e", region: "reenrol" });
  });
});

test.describe("pre-creating", () => {
  test.use(asRole("operator"));

  test("Pre-create shows the claim token once beside the agent command; an unbound token cannot claim, it can", async ({
    page,
    apiAs,
    playwright,
  }) => {
    test.setTimeout(90_000);
    const operator = await apiAs("operator");
    const name = `e2e-precreate-${randomBytes(3).toString("hex")}`;
    await page.goto("/clusters");
    await page.getByRole("button", { name: "Pre-create…" }).click({ timeout: 30_000 });
    const dialog = page.getByRole("dialog", { name: "Pre-create a cluster" });
    await dialog.getByLabel("Cluster name").fill(name);
    await dialog.getByLabel("Label env").fill("e2e");
    await dialog.getByLabel("Label region").fill("precreate");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/api/v1/clusters") && r.request().method() === "POST"),
      dialog.getByRole("button", { name: "Pre-create cluster" }).click(),
    ]);
    expect(response.status()).toBe(201);
    const { id } = (await response.json()) as { id: string };

    const panel = page.getByRole("region", { name: /minted$/ });
    await expect(panel).toContainText(`register the cluster ${name} (and no other) once`);
    const token = (await page.getByTestId("minted-token").innerText()).trim();
    await expect(panel.locator("#agent-command")).toContainText(`--name ${name}`);
    await panel.getByRole("button", { name: "I’ve saved the token — close" }).click();
    await expect(page.getByTestId("minted-token")).toHaveCount(0);

    const unbound = await operator.post("/api/v1/registration-tokens", { data: { name: `steal ${name}` }, headers: SAME_ORIGIN });
    const stolen = await registerThroughAgentPort(playwright, ((await unbound.json()) as { token: string }).token, name, {
      env: "e2e",
      region: "precreate",
    });
    expect(stolen.status).toBe(409);
    expect(stolen.body.error).toBe("cluster_conflict");
    const claimed = await registerThroughAgentPort(playwright, token, name);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
    expect(claimed.body.clusterId).toBe(id);
    const detail = (await (await operator.get(`/api/v1/clusters/${id}`)).json()) as { labels: Record<string, string> };
    expect(detail.labels).toEqual({ env: "e2e", region: "precreate" });
  });
});

test.describe("as a viewer", () => {
  test.use(asRole("viewer"));

  test("a viewer sees no Re-enrol, and the API refuses the viewer a bound token", async ({ page, apiAs }) => {
    test.setTimeout(60_000);
    const admin = await apiAs("admin");
    const name = `e2e-reenrol-ro-${randomBytes(3).toString("hex")}`;
    const created = await admin.post("/api/v1/clusters", {
      data: { name, labels: { env: "e2e", region: "reenrol" } },
      headers: SAME_ORIGIN,
    });
    expect(created.status(), await created.text()).toBe(201);
    const { id } = (await created.json()) as { id: string };

    await page.goto(`/clusters/${id}`);
    // The first visit builds the page's data: allow a busy machine its time.
    await expect(page.getByRole("heading", { name, exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole("button", { name: /Re-enrol/ })).toHaveCount(0);
    await page.goto("/clusters");
    await expect(page.getByRole("heading", { name: "Clusters", exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole("button", { name: /Pre-create/ })).toHaveCount(0);

    const viewer = await apiAs("viewer");
    await expectApiError(
      await viewer.post("/api/v1/registration-tokens", { data: { name: "viewer-reenrol", clusterId: id }, headers: SAME_ORIGIN }),
      403,
      "forbidden",
    );
    const tokens = (await (await viewer.get("/api/v1/registration-tokens")).json()) as { items: Token[] };
    expect(tokens.items.filter((t) => t.clusterId === id).map((t) => t.name)).toEqual([`claim ${name}`]);
  });
});
