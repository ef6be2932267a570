// The cluster page for the engineer who runs the fleet: the heartbeat chart counts a NotReady
// outage as a gap and shades it, a NotReady cluster says what to check next, node pools can be
// retired (only when the agent can do it), owner and notes are edited and audited, and an
// admin's link template gives each cluster an "Open in …" link. Clusters are driven by the test
// through the agent protocol, so each state arrives when the test says.
import type { APIRequestContext, Page, PlaywrightWorkerArgs } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { enrolTestAgent, type HeartbeatOptions, type TestAgent } from "../support/agent-api";
import { okJson } from "../support/agent-process";
import { savePhoneScreenshots, saveScreenshots } from "../support/screenshots";

const LABELS = { env: "dev", region: "eu-west-1" };
const POOLS = [
  { name: "general", nodeCount: 3, readyNodes: 3, kubeletVersion: "1.30.2", instanceType: "m5.large" },
  { name: "batch", nodeCount: 2, readyNodes: 2, kubeletVersion: "1.30.2", instanceType: "c5.xlarge" },
];
const WORKLOADS = { pods: 42, namespaces: 7, userPods: 17 };

type Detail = {
  id: string;
  name: string;
  status: string;
  owner: string | null;
  notes: string | null;
  capabilities: string[] | null;
  nodePools: { name: string; state: string }[];
  link: { url: string | null; host?: string } | null;
};
type Audit = { items: { action: string; details: Record<string, unknown> }[] };

const run = Date.now().toString(36);

async function enrol(
  playwright: PlaywrightWorkerArgs["playwright"],
  admin: APIRequestContext,
  suffix: string,
): Promise<TestAgent> {
  const token = await okJson<{ token: string }>(
    await admin.post("/api/v1/registration-tokens", {
      data: { name: `e2e day-two ${run} ${suffix}`, ttlSeconds: 600, maxClusters: 1, fixedLabels: { "e2e-day-two": run } },
      headers: SAME_ORIGIN,
    }),
  );
  return enrolTestAgent(playwright, token.token, `e2e-day2-${run}-${suffix}`, LABELS);
}

const detail = async (api: APIRequestContext, id: string) => okJson<Detail>(await api.get(`/api/v1/clusters/${id}`));

/** Heartbeats until the cluster's detail satisfies `ready` (facts are written in batches). */
async function heartbeatUntil(agent: TestAgent, api: APIRequestContext, opts: HeartbeatOptions, ready: (d: Detail) => boolean) {
  await expect
    .poll(
      async () => {
        await agent.heartbeat(opts);
        return ready(await detail(api, agent.clusterId));
      },
      { timeout: 30_000, intervals: [500, 1_000] },
    )
    .toBe(true);
}

async function phone(page: Page) {
  await page.setViewportSize({ width: 390, height: 844 });
}

test.describe("the cluster page on day two", () => {
  test.use(asRole("operator"));

  test("a NotReady outage is a shaded gap, the summary agrees with the header, and the page says what to check next", async ({
    page,
    playwright,
    apiAs,
  }, testInfo) => {
    test.setTimeout(120_000);
    const admin = await apiAs("admin");
    const agent = await enrol(playwright, admin, "outage");
    try {
      await heartbeatUntil(agent, admin, {}, (d) => d.status === "Ready");
      // The agent keeps heartbeating but reports its API server down: an outage with heartbeats arriving.
      await heartbeatUntil(agent, admin, { apiServer: "down" }, (d) => d.status === "NotReady");
      // The sweeper records the transition (the chart's NotReady span comes from the status history).
      await expect
        .poll(
          async () => {
            await agent.heartbeat({ apiServer: "down" });
            const events = await okJson<{ events: { kind: string; to: string }[] }>(
              await admin.get(`/api/v1/clusters/${agent.clusterId}`),
            );
            return events.events.some((e) => e.kind === "status" && e.to === "NotReady");
          },
          { timeout: 30_000, intervals: [1_000] },
        )
        .toBe(true);

      await page.goto(`/clusters/${agent.clusterId}`);
      // The first page of a fresh server on a loaded machine can take a while to render.
      await expect(page.getByRole("heading", { level: 1, name: agent.name })).toBeVisible({ timeout: 30_000 });
      const header = page.getByTestId("heartbeat-gap-header");
      const timeline = page.getByTestId("heartbeat-timeline");
      await expect(timeline).toBeVisible();
      await expect(header).toHaveText(/^1 gap · gap ongoing, \d+ min so far$/);
      await expect(header).not.toHaveText("No gaps");
      // The legend's summary is the header's, word for word, and the chart shades the span.
      const summary = (await header.textContent())!;
      await expect(page.getByTestId("heartbeat-gap-legend")).toHaveText(
        new RegExp(`· ${summary.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
      );
      await expect(timeline).toHaveAttribute("data-not-ready-bands", "1");
      await expect(timeline.locator(".not-ready-shade .recharts-bar-rectangle").first()).toBeVisible();
      await expect(page.getByRole("figure", { name: /Heartbeats per minute/ })).toHaveAccessibleDescription(
        /gap.*NotReady in 1 span/,
      );

      // What to check next: the agent's pod, its log command with the manifest's names, its last error.
      const steps = page.getByTestId("not-ready-next-steps");
      await expect(steps).toContainText("kubectl -n fleet-system get pods -l app.kubernetes.io/name=fleet-agent");
      await expect(steps).toContainText("kubectl -n fleet-system logs deploy/fleet-agent");
      await expect(page.getByTestId("agent-last-error")).toContainText("API server down");
      await saveScreenshots(page, testInfo, "cluster-not-ready-gap");
      await phone(page);
      await expect(steps).toBeVisible();
      await savePhoneScreenshots(page, testInfo, "cluster-not-ready-gap-phone");

      // Recovered: the span closes, the gap stays counted, and the next steps go away.
      await heartbeatUntil(agent, admin, {}, (d) => d.status === "Ready");
      await page.reload();
      await expect(page.getByTestId("heartbeat-gap-header")).toHaveText(/^1 gap · longest \d+ min$/);
      await expect(page.getByTestId("not-ready-next-steps")).toHaveCount(0);
    } finally {
      await agent.dispose();
    }
  });

  test("an operator retires a node pool after a confirmation with its counts; an agent without node actions cannot", async ({
    page,
    playwright,
    apiAs,
  }, testInfo) => {
    test.setTimeout(180_000);
    const admin = await apiAs("admin");
    const operator = await apiAs("operator");
    const viewer = await apiAs("viewer");
    const able = await enrol(playwright, admin, "pools");
    const unable = await enrol(playwright, admin, "nopools");
    try {
      await heartbeatUntil(
        able,
        admin,
        { capabilities: ["disconnect", "upgrade", "drainNodePool"], nodePools: POOLS, workloads: WORKLOADS },
        (d) => d.nodePools.length === 2 && !!d.capabilities?.includes("drainNodePool"),
      );
      await heartbeatUntil(
        unable,
        admin,
        { capabilities: ["disconnect", "upgrade"], nodePools: POOLS, workloads: WORKLOADS },
        (d) => d.nodePools.length === 2 && d.capabilities !== null,
      );

      await page.goto(`/clusters/${able.clusterId}`);
      const pools = page.getByRole("table").filter({ hasText: "Instance type" });
      await expect(pools.getByRole("row").filter({ hasText: "general" })).toBeVisible();
      await saveScreenshots(page, testInfo, "cluster-node-pools");
      // Retiring needs the cluster Ready: a heartbeat now keeps it so through the dialog's screenshots.
      const beat = () =>
        able.heartbeat({ capabilities: ["disconnect", "upgrade", "drainNodePool"], nodePools: POOLS, workloads: WORKLOADS });
      await beat();
      await page.getByRole("button", { name: /^Retire general\s*…$/ }).click();
      const dialog = page.getByRole("dialog", { name: "Retire node pool general?" });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByTestId("retire-summary")).toContainText("3 nodes");
      await expect(dialog.getByTestId("retire-summary")).toContainText("42 pods (17 of them user pods)");
      // What the drain may lose is chosen here, off by default, each with its consequence beside it.
      const bare = dialog.getByRole("checkbox", { name: "Evict pods no controller recreates" });
      await expect(bare).not.toBeChecked();
      await expect(bare).toHaveAccessibleDescription(/deleted for good/);
      await expect(dialog.getByRole("checkbox", { name: "Evict pods with emptyDir data" })).not.toBeChecked();
      await bare.check();
      // The pool's name typed and a reason, like removing a cluster.
      await dialog.getByRole("button", { name: "Retire pool" }).click();
      await expect(dialog).toContainText("Type the pool name exactly as shown (general) to confirm.");
      await dialog.getByLabel("Type general to confirm").fill("general");
      await dialog.getByLabel("Reason").fill(`e2e retire ${run}`);
      await saveScreenshots(page, testInfo, "cluster-retire-dialog");
      await savePhoneScreenshots(page, testInfo, "cluster-retire-dialog-phone");
      await beat();
      const box = (await dialog.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      await dialog.getByRole("button", { name: "Retire pool" }).click();
      await expect(dialog).toHaveCount(0);
      await expect(pools.getByRole("row").filter({ hasText: "general" }).getByText("Retiring")).toBeVisible();
      await expect(page.getByRole("button", { name: /^Retire general\s*…$/ })).toHaveCount(0);
      // The agent is sent the directive; the retirement is audited with the pool's counts.
      const directives = await able.heartbeat({ capabilities: ["drainNodePool"], nodePools: POOLS });
      const drain = directives.find((d) => d.type === "drainNodePool" && d.nodePool === "general");
      expect(drain).toMatchObject({ force: true });
      expect(drain).not.toHaveProperty("deleteEmptyDirData");
      const audit = await okJson<Audit>(await admin.get(`/api/v1/audit?action=nodePool.retire&target=${able.clusterId}`));
      expect(audit.items[0]?.details).toMatchObject({ nodePool: "general", nodes: 3, reason: `e2e retire ${run}`, force: true });
      // batch is now the cluster's last active pool: the dialog says why it cannot be retired.
      await page.getByRole("button", { name: /^Retire batch\s*…$/ }).click();
      const last = page.getByRole("dialog", { name: "Retire node pool batch?" });
      await expect(last.getByTestId("retire-refused")).toContainText("last active node pool");
      await expect(last.getByRole("button", { name: "Retire pool" })).toHaveCount(0);
      await saveScreenshots(page, testInfo, "cluster-retire-refused");
      await last.getByRole("button", { name: "Close" }).click();

      // The API as an attacker or a script would call it.
      const retire = (api: APIRequestContext, id: string, pool: string) =>
        api.post(`/api/v1/clusters/${id}/node-pools/${pool}/retire`, { data: { reason: "e2e" }, headers: SAME_ORIGIN });
      const again = await retire(operator, able.clusterId, "general");
      expect(again.status()).toBe(409);
      expect((await again.json()).error).toBe("conflict");
      const missing = await retire(operator, able.clusterId, "no-such-pool");
      expect(missing.status()).toBe(404);
      expect((await retire(operator, "no-such-cluster", "general")).status()).toBe(404);
      const lastPool = await retire(operator, able.clusterId, "batch");
      expect(lastPool.status()).toBe(409);
      expect((await lastPool.json()).error).toBe("last_node_pool");
      expect((await retire(viewer, able.clusterId, "batch")).status()).toBe(403);
      // (Ready, so the agent's missing capability is what refuses it)
      await heartbeatUntil(
        unable,
        admin,
        { capabilities: ["disconnect", "upgrade"], nodePools: POOLS, workloads: WORKLOADS },
        (d) => d.status === "Ready",
      );
      const unsupported = await retire(operator, unable.clusterId, "general");
      expect(unsupported.status()).toBe(422);
      expect((await unsupported.json()).error).toBe("incompatible_agent");

      // Without node actions the button is there but disabled, and the page says why.
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(`/clusters/${unable.clusterId}`);
      const off = page.getByRole("button", { name: /^Retire general\s*…$/ });
      await expect(off).toBeDisabled();
      await expect(off).toHaveAccessibleDescription(/does not advertise node actions/);
      await expect(page.getByText(/Retire is off: The agent does not advertise node actions/)).toBeVisible();
    } finally {
      await able.dispose();
      await unable.dispose();
    }
  });

  test("identity comes first on a phone; owner and notes are edited, shown and audited", async ({
    page,
    playwright,
    apiAs,
  }, testInfo) => {
    test.setTimeout(90_000);
    const admin = await apiAs("admin");
    const operator = await apiAs("operator");
    const viewer = await apiAs("viewer");
    const agent = await enrol(playwright, admin, "owner");
    try {
      await heartbeatUntil(agent, admin, {}, (d) => d.status === "Ready");
      await phone(page);
      await page.goto(`/clusters/${agent.clusterId}`);
      const identity = page.getByTestId("cluster-identity-summary");
      await expect(identity).toContainText(agent.clusterId);
      await expect(identity).toContainText("eu-west-1");
      await expect(identity).toContainText("Owner: not set");
      const status = page.getByTestId("cluster-status-line");
      expect((await identity.boundingBox())!.y).toBeLessThan((await status.boundingBox())!.y);
      // On the first screen, before any status card.
      expect((await identity.boundingBox())!.y).toBeLessThan(844);

      await page.getByRole("button", { name: "Edit owner and notes" }).click();
      await page.getByLabel("Owner", { exact: true }).fill("team-payments");
      await page.getByLabel("Notes").fill(`Runbook: https://wiki.example.com/${run}\nOn-call: #payments-oncall`);
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByTestId("cluster-owner")).toHaveText("team-payments");
      await expect(page.getByTestId("cluster-notes")).toContainText("On-call: #payments-oncall");
      await expect(identity).toContainText("Owner: team-payments");
      await saveScreenshots(page, testInfo, "cluster-owner-notes");
      await savePhoneScreenshots(page, testInfo, "cluster-identity-first-phone");

      const audit = await okJson<Audit>(await admin.get(`/api/v1/audit?action=cluster.update&target=${agent.clusterId}`));
      expect(audit.items[0]?.details.owner).toEqual({ from: null, to: "team-payments" });
      expect((audit.items[0]?.details.notes as { from: unknown }).from).toBeNull();

      // Refusals: too long (400 with the field's limit), viewers (403), identity fields (400).
      const patch = (api: APIRequestContext, data: unknown) =>
        api.patch(`/api/v1/clusters/${agent.clusterId}`, { data, headers: SAME_ORIGIN });
      const long = await patch(operator, { owner: "x".repeat(121) });
      expect(long.status()).toBe(400);
      expect(await long.json()).toMatchObject({ error: "invalid_request" });
      expect((await patch(operator, { notes: "n".repeat(4_001) })).status()).toBe(400);
      expect((await patch(operator, { owner: 7 })).status()).toBe(400);
      expect((await patch(viewer, { owner: "me" })).status()).toBe(403);
      // An empty owner clears it.
      await okJson(await patch(operator, { owner: "" }));
      expect((await detail(admin, agent.clusterId)).owner).toBeNull();
    } finally {
      await agent.dispose();
    }
  });

  test("an admin's link template gives each cluster an Open in … link", async ({ page, playwright, apiAs }, testInfo) => {
    test.setTimeout(90_000);
    const admin = await apiAs("admin");
    const operator = await apiAs("operator");
    const agent = await enrol(playwright, admin, "link");
    const before = (await okJson<{ clusterLinkTemplate: string | null }>(await admin.get("/api/v1/settings")))
      .clusterLinkTemplate;
    const setTemplate = (api: APIRequestContext, clusterLinkTemplate: string | null) =>
      api.patch("/api/v1/settings", { data: { clusterLinkTemplate }, headers: SAME_ORIGIN });
    try {
      await heartbeatUntil(agent, admin, {}, (d) => d.status === "Ready");
      // Refused: unknown placeholders, not a web URL, and anyone but an admin.
      const unknown = await setTemplate(admin, "https://headlamp.example.com/{cluster}");
      expect(unknown.status()).toBe(400);
      expect((await unknown.json()).message).toMatch(/\{cluster\} is not a placeholder/);
      expect((await setTemplate(admin, "javascript:alert('{name}')")).status()).toBe(400);
      expect((await setTemplate(operator, "https://headlamp.example.com/c/{name}")).status()).toBe(403);

      const template = "https://headlamp.example.com/c/{name}?id={id}&r={label:region}&t={label:e2e-day-two}";
      await okJson(await setTemplate(admin, template));
      const audit = await okJson<Audit>(await admin.get("/api/v1/audit?action=settings.update"));
      expect(JSON.stringify(audit.items[0]?.details)).toContain("clusterLinkTemplate");

      await page.goto(`/clusters/${agent.clusterId}`);
      const link = page.getByRole("link", { name: /^Open in headlamp\.example\.com/ });
      await expect(link).toHaveAttribute(
        "href",
        `https://headlamp.example.com/c/${agent.name}?id=${encodeURIComponent(agent.clusterId)}&r=eu-west-1&t=${run}`,
      );
      await expect(link).toHaveAttribute("target", "_blank");
      await expect(link).toHaveAttribute("rel", /noopener/);
      await saveScreenshots(page, testInfo, "cluster-link-out");
      await phone(page);
      await expect(link).toBeInViewport();
      await savePhoneScreenshots(page, testInfo, "cluster-link-out-phone");

      // A template naming a label the cluster lacks gives no link, and says which label.
      await okJson(await setTemplate(admin, "https://console.example.com/{label:e2e-absent-key}"));
      await page.reload();
      await expect(page.getByText("No link out: the cluster has no e2e-absent-key label")).toBeVisible();
      await expect(page.getByRole("link", { name: /^Open in/ })).toHaveCount(0);
    } finally {
      await okJson(await setTemplate(admin, before ?? null));
      await agent.dispose();
    }
  });
});

test.describe("the link template in Settings", () => {
  test.use(asRole("admin"));

  test("an admin sets the template in the form; an unknown placeholder is refused beside the field", async ({
    page,
    apiAs,
  }, testInfo) => {
    const admin = await apiAs("admin");
    const before = (await okJson<{ clusterLinkTemplate: string | null }>(await admin.get("/api/v1/settings")))
      .clusterLinkTemplate;
    try {
      await page.goto("/settings");
      const field = page.getByLabel("Cluster link template");
      await field.fill("https://headlamp.example.com/{cluster}");
      await page.getByRole("button", { name: "Save settings" }).click();
      await expect(field).toHaveAttribute("aria-invalid", "true");
      await expect(field).toHaveAccessibleDescription(/\{cluster\} is not a placeholder/);
      await field.fill(`https://headlamp.example.com/c/{name}?e2e=${run}`);
      await page.getByRole("button", { name: "Save settings" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
      expect(
        (await okJson<{ clusterLinkTemplate: string | null }>(await admin.get("/api/v1/settings"))).clusterLinkTemplate,
      ).toBe(`https://headlamp.example.com/c/{name}?e2e=${run}`);
      await saveScreenshots(page, testInfo, "settings-link-template");
      await savePhoneScreenshots(page, testInfo, "settings-link-template-phone");
    } finally {
      await okJson(
        await admin.patch("/api/v1/settings", { data: { clusterLinkTemplate: before ?? null }, headers: SAME_ORIGIN }),
      );
    }
  });
});
