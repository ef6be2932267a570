// The overview, the cluster list and the cluster detail against real agents: the reference agent
// CLI runs as a child process against the server's agent port, registers with a token minted
// through the API, and heartbeats. Everything is checked without reloading the page.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { APIRequestContext, Page, TestInfo } from "@playwright/test";
import { ACCOUNTS, SAME_ORIGIN, asRole, expect, expectApiError, test } from "../fixtures";
import { AGENT_PORT } from "../support/run";

// ---------------------------------------------------------------------------------------------
// Helpers (page objects for these pages would belong in e2e/pages; kept here while they are
// used by this file only).

const LABELS = "env=e2e,region=local";

function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e4)}`;
}

async function json<T>(res: Awaited<ReturnType<APIRequestContext["get"]>>): Promise<T> {
  expect(res.ok(), `${res.url()} -> ${res.status()} ${await res.text()}`).toBeTruthy();
  return (await res.json()) as T;
}

type Settings = { notReadyThresholdSeconds: number; heartbeatIntervalSeconds: number };

async function patchSettings(admin: APIRequestContext, patch: Partial<Settings>): Promise<void> {
  await json(await admin.patch("/api/v1/settings", { data: patch, headers: SAME_ORIGIN }));
}

/** The reference agent as a process: `npm run agent` is `node --import tsx lib/agent/cli.ts`. */
class AgentProcess {
  private output = "";
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly name: string,
  ) {
    child.stdout?.on("data", (c) => (this.output += c));
    child.stderr?.on("data", (c) => (this.output += c));
  }

  static async start(admin: APIRequestContext, testInfo: TestInfo, name: string): Promise<AgentProcess> {
    const fleet = await json<{ caFingerprint: string }>(await admin.get("/api/v1/fleet"));
    const token = await json<{ token: string }>(
      await admin.post("/api/v1/registration-tokens", {
        data: { name: `e2e ${name}`, ttlSeconds: 3600, maxClusters: 1 },
        headers: SAME_ORIGIN,
      }),
    );
    const dir = mkdtempSync(path.join(tmpdir(), "e2e-agent-"));
    const tokenFile = path.join(dir, "token");
    writeFileSync(tokenFile, token.token, { mode: 0o600 });
    const root = path.dirname(testInfo.config.configFile ?? path.join(process.cwd(), "playwright.config.ts"));
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "lib/agent/cli.ts",
        ...["--server", `https://127.0.0.1:${AGENT_PORT}`],
        ...["--token-file", tokenFile],
        ...["--name", name],
        ...["--labels", LABELS],
        ...["--state-dir", path.join(dir, "state")],
        ...["--ca-fingerprint", fleet.caFingerprint],
        ...["--heartbeat-interval", "2"],
        ...["--log-level", "warn"],
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    return new AgentProcess(child, dir, name);
  }

  /** The cluster id once the agent has registered (polled through the admin API). */
  async clusterId(admin: APIRequestContext): Promise<string> {
    let id: string | undefined;
    await expect
      .poll(
        async () => {
          if (this.child.exitCode !== null) throw new Error(`agent exited ${this.child.exitCode}:\n${this.output}`);
          const list = await json<{ items: { id: string; name: string }[] }>(
            await admin.get(`/api/v1/clusters?q=${encodeURIComponent(this.name)}`),
          );
          id = list.items.find((c) => c.name === this.name)?.id;
          return id;
        },
        { message: `cluster ${this.name} registered`, timeout: 20_000 },
      )
      .toBeTruthy();
    return id!;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve));
      this.child.kill("SIGTERM");
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Registers a cluster with a real agent, then stops the agent; the cluster stays (NotReady later). */
async function registeredCluster(admin: APIRequestContext, testInfo: TestInfo, prefix: string) {
  const agent = await AgentProcess.start(admin, testInfo, uniqueName(prefix));
  try {
    return { id: await agent.clusterId(admin), name: agent.name };
  } finally {
    await agent.stop();
  }
}

/** The number on an overview count card; 0 while the first-run empty state is shown instead. */
async function countOnOverview(page: Page, status: "Ready" | "NotReady" | "total"): Promise<number> {
  const card = page.getByTestId(`count-${status}`);
  if (!(await card.isVisible())) return 0;
  return Number((await card.getByTestId("count-value").innerText()).replace(/\D/g, ""));
}

/** Marks the page so a reload (which would lose the mark) is detectable. */
async function markNoReload(page: Page) {
  await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
}
async function expectNotReloaded(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
}

// ---------------------------------------------------------------------------------------------

test.describe("live status", () => {
  test.use(asRole("admin"));

  test("a cluster appears Ready on Overview and Clusters without a reload, and turns NotReady within threshold + 5 s of its agent stopping", async ({
    page,
    context,
    apiAs,
  }, testInfo) => {
    test.setTimeout(120_000);
    const admin = await apiAs("admin");
    const original = await json<Settings>(await admin.get("/api/v1/settings"));
    const THRESHOLD = 10;
    await patchSettings(admin, { notReadyThresholdSeconds: THRESHOLD, heartbeatIntervalSeconds: 2 });
    try {
      const name = uniqueName("e2e-live");

      await page.goto("/");
      await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible();
      const readyBefore = await countOnOverview(page, "Ready");

      const list = await context.newPage();
      await list.goto(`/clusters?q=${name}`);
      await expect(list.getByText("No clusters match these filters")).toBeVisible();
      await expect(list.getByRole("status").filter({ hasText: "Live" })).toBeVisible();
      await expect(list.getByText(`NotReady after ${THRESHOLD} s without a heartbeat`)).toBeVisible();
      await markNoReload(page);
      await markNoReload(list);

      const agent = await AgentProcess.start(admin, testInfo, name);
      const row = list.getByRole("row").filter({ hasText: name });
      let notReadyBefore: number;
      try {
        await expect(row.getByText("Ready", { exact: true })).toBeVisible({ timeout: 20_000 });
        await expect(row).toContainText(/\d+ s ago/);
        await expect.poll(() => countOnOverview(page, "Ready"), { timeout: 10_000 }).toBeGreaterThan(readyBefore);
        notReadyBefore = await countOnOverview(page, "NotReady");
      } finally {
        await agent.stop();
      }
      const stoppedAt = Date.now();

      await expect(row.getByText("NotReady", { exact: true })).toBeVisible({ timeout: (THRESHOLD + 5) * 1000 });
      expect(Date.now() - stoppedAt).toBeLessThanOrEqual((THRESHOLD + 5) * 1000);
      await expect.poll(() => countOnOverview(page, "NotReady"), { timeout: 5_000 }).toBeGreaterThan(notReadyBefore);

      await expectNotReloaded(page);
      await expectNotReloaded(list);
    } finally {
      await patchSettings(admin, {
        notReadyThresholdSeconds: original.notReadyThresholdSeconds,
        heartbeatIntervalSeconds: original.heartbeatIntervalSeconds,
      });
    }
  });
});

test.describe("labels on the cluster detail page", () => {
  test.use(asRole("operator"));

  test("an operator adds a label, cannot remove a required one, and the change is audited", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(60_000);
    const admin = await apiAs("admin");
    const cluster = await registeredCluster(admin, testInfo, "e2e-labels");

    await page.goto(`/clusters/${cluster.id}`);
    await expect(page.getByRole("heading", { name: cluster.name })).toBeVisible();
    await page.getByRole("button", { name: "Edit labels" }).click();
    const editor = page.getByRole("form", { name: "Edit labels" });

    // A required label: the remove button is disabled and says why when reached.
    const removeEnv = editor.getByRole("button", { name: "Remove env" });
    await expect(removeEnv).toBeDisabled();
    await removeEnv.focus();
    await expect(editor.getByText(/"env" is a required label/)).toBeVisible();

    // Live syntax checks, then a valid label.
    await editor.getByRole("button", { name: "+ Add label" }).click();
    const key = editor.getByLabel(/^Key of label \d+$/).last();
    await key.fill("-owner");
    await expect(key).toHaveAttribute("aria-invalid", "true");
    await expect(editor.getByText(/Name must start and end with a letter or digit/)).toBeVisible();
    await expect(editor.getByRole("button", { name: "Save labels" })).toBeDisabled();
    await key.fill("e2e.example.com/owner");
    await editor.getByLabel("Value of e2e.example.com/owner").fill("platform");

    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/api/v1/clusters/${cluster.id}`) && r.request().method() === "PATCH"),
      editor.getByRole("button", { name: "Save labels" }).click(),
    ]);
    expect(response.status()).toBe(200);
    await expect(page.getByRole("status").filter({ hasText: "Labels saved: 1 added." })).toBeVisible();
    await expect(page.getByRole("list", { name: "Labels" })).toContainText("e2e.example.com/owner=platform");

    const stored = await json<{ labels: Record<string, string> }>(await admin.get(`/api/v1/clusters/${cluster.id}`));
    expect(stored.labels).toEqual({ env: "e2e", region: "local", "e2e.example.com/owner": "platform" });

    const audit = await json<{ items: { actor: string; action: string; details: { labels?: { added?: object } } }[] }>(
      await admin.get(`/api/v1/audit?action=cluster.update&target=${cluster.id}`),
    );
    expect(audit.items[0]?.actor).toBe(ACCOUNTS.operator.email);
    expect(audit.items[0]?.details.labels?.added).toEqual({ "e2e.example.com/owner": "platform" });
  });

  test("a refusal from the server is shown and the optimistic change rolled back", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(60_000);
    const admin = await apiAs("admin");
    const cluster = await registeredCluster(admin, testInfo, "e2e-refused");
    // The server is asked to refuse the way it does when required labels changed meanwhile.
    await page.route(`**/api/v1/clusters/${cluster.id}`, (route) =>
      route.request().method() === "PATCH"
        ? route.fulfill({
            status: 422,
            contentType: "application/json",
            body: JSON.stringify({
              error: "missing_required_labels",
              message: "Required labels cannot be removed: team.",
              details: { missing: ["team"] },
            }),
          })
        : route.continue(),
    );
    await page.goto(`/clusters/${cluster.id}`);
    await page.getByRole("button", { name: "Edit labels" }).click();
    const editor = page.getByRole("form", { name: "Edit labels" });
    await editor.getByLabel("Value of region").fill("elsewhere");
    await editor.getByRole("button", { name: "Save labels" }).click();
    await expect(editor.getByRole("alert")).toHaveText("Required labels cannot be removed: team.");
    // The editor is back with what was typed; the cached labels are the server's again.
    await expect(editor.getByLabel("Value of region")).toHaveValue("elsewhere");
    await editor.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("list", { name: "Labels" })).toContainText("region=local");
  });
});

test.describe("as a viewer", () => {
  test.use(asRole("viewer"));

  test("labels are read-only on the page, and a PATCH through the API is refused", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(60_000);
    const admin = await apiAs("admin");
    const cluster = await registeredCluster(admin, testInfo, "e2e-viewer");

    await page.goto(`/clusters/${cluster.id}`);
    await expect(page.getByRole("heading", { name: cluster.name })).toBeVisible();
    await expect(page.getByRole("list", { name: "Labels" })).toContainText("env=e2e");
    await expect(page.getByRole("button", { name: "Edit labels" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /Revoke certificate/ })).toHaveCount(0);

    const viewer = await apiAs("viewer");
    const res = await viewer.patch(`/api/v1/clusters/${cluster.id}`, {
      data: { labels: { env: "e2e", region: "local", sneaky: "yes" } },
      headers: SAME_ORIGIN,
    });
    await expectApiError(res, 403, "forbidden");
    const stored = await json<{ labels: Record<string, string> }>(await admin.get(`/api/v1/clusters/${cluster.id}`));
    expect(stored.labels.sneaky).toBeUndefined();
  });
});

test.describe("screenshots", () => {
  test.use({ ...asRole("admin"), viewport: { width: 1440, height: 900 } });

  test("Overview, Clusters and a cluster's detail at 1440x900, light and dark", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(90_000);
    const admin = await apiAs("admin");
    const cluster = await registeredCluster(admin, testInfo, "e2e-shot");
    for (const theme of ["light", "dark"] as const) {
      // The console follows the system theme until a choice is stored.
      await page.emulateMedia({ colorScheme: theme });
      await page.goto("/");
      await page.evaluate(() => localStorage.removeItem("theme"));

      await page.goto("/");
      await expect(page.getByTestId("count-total")).toBeVisible();
      await expect(page.getByRole("figure", { name: /Heartbeats per second/ })).toBeVisible();
      await shoot(page, testInfo, `overview-${theme}`);

      await page.goto("/clusters");
      await expect(page.getByRole("row").nth(1)).toBeVisible();
      await shoot(page, testInfo, `clusters-${theme}`);

      await page.goto(`/clusters/${cluster.id}`);
      await expect(page.getByRole("figure", { name: /Heartbeats per minute/ })).toBeVisible();
      await shoot(page, testInfo, `cluster-detail-${theme}`);
    }
  });
});

async function shoot(page: Page, testInfo: TestInfo, name: string) {
  // Let charts measure themselves and the live stream deliver its first summary.
  await page.waitForTimeout(750);
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}
