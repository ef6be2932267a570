// `npm run simulate` as a child process of a test: a few simulated clusters registered with a
// token whose fixed label marks every one of them, so a selector matches exactly these and
// nothing other tests registered. They heartbeat (Active, Ready, with node pools and versions)
// and perform `upgrade` directives.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { APIRequestContext, TestInfo } from "@playwright/test";
import { SAME_ORIGIN, expect } from "../fixtures";
import { okJson } from "./agent-process";
import { AGENT_PORT } from "./run";

export type Simulator = ChildProcess & { log: () => string };

export async function startSimulator(
  admin: APIRequestContext,
  testInfo: TestInfo,
  o: { clusters: number; label: [string, string]; prefix: string; durationSeconds: number },
): Promise<Simulator> {
  const fleet = await okJson<{ caFingerprint: string }>(await admin.get("/api/v1/fleet"));
  const token = await okJson<{ token: string }>(
    await admin.post("/api/v1/registration-tokens", {
      data: {
        name: `e2e ${o.prefix}`,
        ttlSeconds: 3600,
        maxClusters: o.clusters,
        fixedLabels: { [o.label[0]]: o.label[1] },
      },
      headers: SAME_ORIGIN,
    }),
  );
  const root = path.dirname(testInfo.config.configFile ?? path.join(process.cwd(), "playwright.config.ts"));
  const child = spawn(
    process.execPath,
    [
      ...["--import", "tsx", "lib/agent/simulator/simulate.ts"],
      ...["--clusters", String(o.clusters)],
      ...["--interval", "2"],
      ...["--token", token.token],
      ...["--server", `https://127.0.0.1:${AGENT_PORT}`],
      ...["--ca-fingerprint", fleet.caFingerprint],
      ...["--duration", String(o.durationSeconds)],
      ...["--prefix", o.prefix],
      ...["--key-pool", "2"],
    ],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (c) => (output += c));
  child.stderr?.on("data", (c) => (output += c));
  return Object.assign(child, { log: () => output });
}

/** Stops the simulator (if still running) and waits for it to exit. */
export async function stopSimulator(simulator: Simulator): Promise<void> {
  if (simulator.exitCode !== null || simulator.signalCode !== null) return;
  const exited = new Promise((resolve) => simulator.once("exit", resolve));
  simulator.kill("SIGTERM");
  const timer = setTimeout(() => simulator.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Waits until `count` clusters matching `selector` are Active and Ready. */
export async function waitForReadyClusters(
  admin: APIRequestContext,
  simulator: Simulator,
  selector: string,
  count: number,
): Promise<{ id: string; name: string }[]> {
  let ready: { id: string; name: string }[] = [];
  await expect
    .poll(
      async () => {
        if (simulator.exitCode !== null) throw new Error(`simulator exited ${simulator.exitCode}:\n${simulator.log()}`);
        const list = await okJson<{ items: { id: string; name: string; phase: string; status: string }[] }>(
          await admin.get(`/api/v1/clusters?${new URLSearchParams({ selector, limit: "50" })}`),
        );
        ready = list.items.filter((c) => c.phase === "Active" && c.status === "Ready");
        return ready.length;
      },
      { message: "simulated clusters Active and Ready", timeout: 60_000 },
    )
    .toBe(count);
  return ready;
}
