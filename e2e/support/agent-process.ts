// The reference agent CLI as a child process of a test (`npm run agent` is
// `node --import tsx lib/agent/cli.ts`), registered with a token minted through the admin API
// and talking to the server's agent port on loopback.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { APIRequestContext, TestInfo } from "@playwright/test";
import { SAME_ORIGIN, expect } from "../fixtures";
import { AGENT_PORT } from "./run";

/** The body of a 2xx response (the test fails with the status and body otherwise). */
export async function okJson<T>(res: Awaited<ReturnType<APIRequestContext["get"]>>): Promise<T> {
  expect(res.ok(), `${res.url()} -> ${res.status()} ${await res.text()}`).toBeTruthy();
  return (await res.json()) as T;
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e4)}`;
}

/** Key, certificate and fleet CA as the agent keeps them in its state dir. */
export type AgentIdentity = { cert: string; key: string; ca: string };

export class AgentProcess {
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

  static async start(
    admin: APIRequestContext,
    testInfo: TestInfo,
    name: string,
    options: {
      labels: string;
      logLevel?: "warn" | "info";
      /** a token minted elsewhere (e.g. through the console) */
      token?: string;
      /** more agent flags, e.g. ["--cluster-uid", uid] */
      args?: string[];
    },
  ): Promise<AgentProcess> {
    const fleet = await okJson<{ caFingerprint: string }>(await admin.get("/api/v1/fleet"));
    const token = options.token
      ? { token: options.token }
      : await okJson<{ token: string }>(
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
        ...["--import", "tsx", "lib/agent/cli.ts"],
        ...["--server", `https://127.0.0.1:${AGENT_PORT}`],
        ...["--token-file", tokenFile],
        ...["--name", name],
        ...["--labels", options.labels],
        ...["--state-dir", path.join(dir, "state")],
        ...["--ca-fingerprint", fleet.caFingerprint],
        ...["--heartbeat-interval", "2"],
        ...["--log-level", options.logLevel ?? "warn"],
        ...(options.args ?? []),
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

  /**
   * The cluster id once the agent has registered (polled through the admin API); with
   * `reportingPods`, only once the cluster is Active and its heartbeats carry pods.
   */
  async clusterId(admin: APIRequestContext, { reportingPods = false } = {}): Promise<string> {
    let id: string | undefined;
    await expect
      .poll(
        async () => {
          if (this.child.exitCode !== null) throw new Error(`agent exited ${this.child.exitCode}:\n${this.output}`);
          const list = await okJson<{ items: { id: string; name: string; phase: string }[] }>(
            await admin.get(`/api/v1/clusters?q=${encodeURIComponent(this.name)}`),
          );
          const found = list.items.find((c) => c.name === this.name);
          if (!found) return false;
          id = found.id;
          if (!reportingPods) return true;
          const detail = await okJson<{ workloads: { pods: number } | null }>(await admin.get(`/api/v1/clusters/${found.id}`));
          return found.phase === "Active" && (detail.workloads?.pods ?? 0) > 0;
        },
        {
          message: `cluster ${this.name} registered${reportingPods ? ", Active and reporting pods" : ""}`,
          timeout: reportingPods ? 30_000 : 20_000,
        },
      )
      .toBe(true);
    return id!;
  }

  /** Key, certificate and fleet CA from the state dir (read while they exist: the agent deletes them on disconnect). */
  identity(): AgentIdentity {
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
