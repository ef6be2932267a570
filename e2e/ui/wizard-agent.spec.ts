// The drain-then-deregister wizard in the browser against a real reference agent process: start
// the drain, watch the agent's pods fall to zero, confirm, disconnect (the agent acknowledges and
// exits 0), remove, and see every verification check pass. Afterwards the agent's certificate,
// read from its state dir before it deleted it, is refused on the agent port with 410.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import type { APIRequestContext, Locator, Page, TestInfo } from "@playwright/test";
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { AGENT_PORT } from "../support/run";

// ---------------------------------------------------------------------------------------------
// Helpers (an agent-process helper would belong in e2e/support once a second spec needs it).

async function json<T>(res: Awaited<ReturnType<APIRequestContext["get"]>>): Promise<T> {
  expect(res.ok(), `${res.url()} -> ${res.status()} ${await res.text()}`).toBeTruthy();
  return (await res.json()) as T;
}

type Identity = { cert: string; key: string; ca: string };

/** The reference agent CLI as a child process (`npm run agent` is `node --import tsx lib/agent/cli.ts`). */
class AgentProcess {
  private output = "";
  readonly exit: Promise<number | null>;
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly name: string,
  ) {
    child.stdout?.on("data", (c) => (this.output += c));
    child.stderr?.on("data", (c) => (this.output += c));
    this.exit = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  static async start(admin: APIRequestContext, testInfo: TestInfo, name: string): Promise<AgentProcess> {
    const fleet = await json<{ caFingerprint: string }>(await admin.get("/api/v1/fleet"));
    const token = await json<{ token: string }>(
      await admin.post("/api/v1/registration-tokens", {
        data: { name: `e2e ${name}`, ttlSeconds: 3600, maxClusters: 1 },
        headers: SAME_ORIGIN,
      }),
    );
    const dir = mkdtempSync(path.join(tmpdir(), "e2e-wizard-agent-"));
    const tokenFile = path.join(dir, "token");
    writeFileSync(tokenFile, token.token, { mode: 0o600 });
    const root = path.dirname(testInfo.config.configFile ?? path.join(process.cwd(), "playwright.config.ts"));
    const child = spawn(
      process.execPath,
      [
        ...["--import", "tsx", "lib/agent/cli.ts"],
        ...["--server", `https://127.0.0.1:${AGENT_PORT}`],
        ...["--token-file", tokenFile],
        ...["--name", name],
        ...["--labels", "env=e2e,region=wizard"],
        ...["--state-dir", path.join(dir, "state")],
        ...["--ca-fingerprint", fleet.caFingerprint],
        ...["--heartbeat-interval", "2"],
        ...["--log-level", "info"],
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    return new AgentProcess(child, dir, name);
  }

  get log(): string {
    return this.output;
  }

  get exitCode(): number | null {
    return this.child.exitCode;
  }

  /** The cluster id once registered and heartbeating with its pods reported. */
  async clusterId(admin: APIRequestContext): Promise<string> {
    let id: string | undefined;
    await expect
      .poll(
        async () => {
          if (this.child.exitCode !== null) throw new Error(`agent exited ${this.child.exitCode}:\n${this.output}`);
          const list = await json<{ items: { id: string; name: string; phase: string }[] }>(
            await admin.get(`/api/v1/clusters?q=${encodeURIComponent(this.name)}`),
          );
          const found = list.items.find((c) => c.name === this.name);
          if (!found) return false;
          const detail = await json<{ workloads: { pods: number } | null; phase: string }>(
            await admin.get(`/api/v1/clusters/${found.id}`),
          );
          id = found.id;
          return found.phase === "Active" && (detail.workloads?.pods ?? 0) > 0;
        },
        { message: `cluster ${this.name} registered, Active and reporting pods`, timeout: 30_000 },
      )
      .toBe(true);
    return id!;
  }

  /** Key, certificate and fleet CA from the state dir (kept in memory: the agent deletes them on disconnect). */
  identity(): Identity {
    const state = path.join(this.dir, "state");
    expect(existsSync(path.join(state, "cluster.json")), "the agent saved its registration").toBe(true);
    const read = (f: string) => readFileSync(path.join(state, f), "utf8");
    return { cert: read("cert.pem"), key: read("key.pem"), ca: read("ca.pem") };
  }

  stateDirGone(): boolean {
    return !existsSync(path.join(this.dir, "state", "cluster.json"));
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill("SIGTERM");
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
      await this.exit;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A heartbeat on the agent port with a client certificate, the way the agent sends it. */
function heartbeatWith(identity: Identity): Promise<{ status: number; body: { error?: string; message?: string } }> {
  const body = JSON.stringify({
    agentVersion: "1.4.0",
    kubernetesVersion: "1.30.2",
    nodePools: [],
    health: { apiServer: "ok", logs: true, metrics: true },
    acks: [],
  });
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port: AGENT_PORT,
        path: "/api/agent/v1/heartbeat",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        cert: identity.cert,
        key: identity.key,
        ca: identity.ca,
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || "{}") }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Full-page screenshots at 1440x900 in both themes, kept as artifacts of the test. */
async function saveScreenshots(page: Page, testInfo: TestInfo, name: string) {
  await page.setViewportSize({ width: 1440, height: 900 });
  // From the top with nothing focused, so sticky parts (sidebar, side panels) sit where they belong.
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), theme === "dark");
    await page.waitForTimeout(300); // charts re-measure after the resize
    const file = testInfo.outputPath(`${name}-${theme}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await testInfo.attach(`${name}-${theme}`, { path: file, contentType: "image/png" });
  }
  await page.evaluate(() => document.documentElement.classList.remove("dark"));
}

function step(page: Page, key: "drain" | "workloads" | "disconnect" | "remove" | "verify"): Locator {
  return page.locator(`li[data-step="${key}"]`);
}

// ---------------------------------------------------------------------------------------------

test.describe("drain-then-deregister wizard", () => {
  test.use(asRole("operator"));

  test("takes a live cluster with a real agent from Active to verified-gone", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(180_000);
    const admin = await apiAs("admin");
    const original = await json<{ heartbeatIntervalSeconds: number }>(await admin.get("/api/v1/settings"));
    await json(await admin.patch("/api/v1/settings", { data: { heartbeatIntervalSeconds: 2 }, headers: SAME_ORIGIN }));
    const agent = await AgentProcess.start(admin, testInfo, `e2e-wizard-${Date.now().toString(36)}`);
    try {
      const id = await agent.clusterId(admin);
      const identity = agent.identity();

      await page.goto(`/clusters/${id}/deregister`);
      await expect(page.getByRole("heading", { name: `Deregister ${agent.name}` })).toBeVisible();
      await expect(step(page, "drain")).toHaveAttribute("aria-current", "step");

      // 1. Start the drain (a confirmation first: it is disruptive).
      await page.getByRole("button", { name: "Start drain…" }).click();
      const startDialog = page.getByRole("dialog", { name: `Start draining ${agent.name}?` });
      await startDialog.getByLabel(/Reason/).fill("e2e: retiring the cluster");
      await startDialog.getByRole("button", { name: "Start drain" }).click();
      await expect(startDialog).toBeHidden();

      // 2. Waiting for the workloads: the agent's pods fall to zero on the live chart.
      await expect(step(page, "workloads")).toHaveAttribute("aria-current", "step");
      await expect(page.getByTestId("waiting-for")).toContainText(/Workloads|0 pods/);
      await expect(page.getByTestId("pods-at-start")).not.toHaveText("0");
      await expect(page.getByTestId("pods-now")).toHaveText("0", { timeout: 60_000 });
      const chart = page.getByRole("figure", { name: "Pods reported by the agent while this page is open" });
      await expect(chart).toHaveAccessibleDescription(/→ 0/);
      await expect(page.getByTestId("waiting-for")).toContainText("confirm to continue");
      await saveScreenshots(page, testInfo, "wizard-workloads-moved");
      await page.getByRole("button", { name: "Continue", exact: true }).click();

      // 3. Disconnect: the agent acknowledges with its next heartbeat, deletes its state and exits 0.
      await expect(step(page, "disconnect")).toHaveAttribute("aria-current", "step");
      await page.getByRole("button", { name: "Disconnect agent…" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Disconnect agent" }).click();
      await expect(page.getByTestId("disconnect-acknowledged")).toBeVisible({ timeout: 30_000 });
      await expect(step(page, "remove")).toHaveAttribute("aria-current", "step");
      const code = await Promise.race([agent.exit, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 20_000))]);
      expect(code, `agent exit code; its log:\n${agent.log}`).toBe(0);
      expect(agent.stateDirGone(), "the agent deleted its state").toBe(true);

      // 4. Remove, then 5. every verification check passes.
      await page.getByRole("button", { name: "Remove cluster…" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Remove cluster" }).click();
      await expect(page.getByText("All checks pass")).toBeVisible({ timeout: 20_000 });
      const checks = page.getByRole("list", { name: "Verification checks" }).getByRole("listitem");
      await expect(checks).toHaveCount(5);
      await expect(checks.and(page.locator('[data-ok="false"]'))).toHaveCount(0);
      for (const key of ["record-removed", "certificates-refused", "no-heartbeat-accepted", "nothing-left", "tombstone"]) {
        await expect(page.locator(`li[data-check="${key}"]`)).toHaveAttribute("data-ok", "true");
      }
      await expect(step(page, "verify")).toHaveAttribute("data-state", "done");
      // No action is left to take on a removed cluster.
      await expect(page.getByRole("button", { name: /Cancel deregistration|Remove cluster|Start drain/ })).toHaveCount(0);
      await saveScreenshots(page, testInfo, "wizard-verified");

      // The certificate the agent had is refused for good.
      const refused = await heartbeatWith(identity);
      expect(refused.status, JSON.stringify(refused.body)).toBe(410);
      expect(refused.body.error).toBe("cluster_deregistered");

      // The wizard still answers for the removed cluster (a tombstone, not a 404).
      const after = await json<{ step: string; verification: { passed: boolean } }>(
        await admin.get(`/api/v1/clusters/${id}/deregistration`),
      );
      expect(after.step).toBe("removed");
      expect(after.verification.passed).toBe(true);
    } finally {
      await agent.stop();
      await admin.patch("/api/v1/settings", {
        data: { heartbeatIntervalSeconds: original.heartbeatIntervalSeconds },
        headers: SAME_ORIGIN,
      });
    }
  });

  test("a viewer follows the wizard read-only and the API refuses the viewer's actions", async ({ browser, apiAs }) => {
    const admin = await apiAs("admin");
    // A pre-created (Provisioning) cluster is enough to look at: no agent needed.
    const name = `e2e-wizard-ro-${Date.now().toString(36)}`;
    const created = await admin.post("/api/v1/clusters", {
      data: { name, labels: { env: "e2e", region: "wizard" } },
      headers: SAME_ORIGIN,
    });
    expect(created.status(), await created.text()).toBe(201);
    const { id } = (await created.json()) as { id: string };

    const context = await browser.newContext(asRole("viewer"));
    const page = await context.newPage();
    try {
      await page.goto(`/clusters/${id}/deregister`);
      await expect(page.getByRole("heading", { name: `Deregister ${name}` })).toBeVisible();
      await expect(page.getByText("acting on it needs the operator role")).toBeVisible();
      await expect(page.getByRole("button", { name: /Start drain|Cancel deregistration/ })).toHaveCount(0);
      const status = await page.evaluate(async (url) => {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ action: "start" }),
        });
        return res.status;
      }, `/api/v1/clusters/${id}/deregistration`);
      expect(status).toBe(403);
    } finally {
      await context.close();
    }
  });
});
