// Debian's HAProxy in front of a test server's agent port, run from the repository's own
// deploy/haproxy/haproxy.cfg with only its documented variables set, on a free loopback port.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import tls from "node:tls";
import { freePort } from "./fleet-server";
import { until } from "./until";

export const HAPROXY_CONFIG = "deploy/haproxy/haproxy.cfg";
const HAPROXY = "/usr/sbin/haproxy";

export type HaproxyEdge = {
  readonly port: number;
  /** The master process (its worker is its child). */
  readonly pid: number;
  /** The runtime API's socket (EDGE_ADMIN_SOCKET). */
  readonly adminSocket: string;
  /** Reloads the configuration and the files it names (master-worker mode: SIGUSR2), as an operator would. */
  reload(): void;
  logs(): string;
  stop(): Promise<void>;
};

/** The variables haproxy.cfg reads, for an edge on loopback in front of `agentPort`. */
export function edgeEnvironment(certDir: string, edgePort: number, agentPort: number): Record<string, string> {
  return {
    EDGE_BIND: `127.0.0.1:${edgePort}`,
    EDGE_CERT_DIR: certDir,
    AGENT_PORT_ADDR: `127.0.0.1:${agentPort}`,
    AGENT_PORT_NAME: "localhost",
    EDGE_ADMIN_SOCKET: path.join(certDir, "admin.sock"),
  };
}

/** Fails (never skips) where HAProxy is missing, saying how to install it. */
export function requireHaproxy() {
  if (!existsSync(HAPROXY)) {
    throw new Error(`${HAPROXY} is missing: install Debian's HAProxy (sudo apt-get install -y haproxy); .ci/run does.`);
  }
  const version = spawnSync(HAPROXY, ["-v"], { encoding: "utf8" }).stdout;
  if (!/version 2\.([6-9]|\d\d)|version [3-9]\./.test(version))
    throw new Error(`HAProxy 2.6 or later is needed, found: ${version}`);
}

/**
 * haproxy.cfg balancing over several instances' agent ports, as docs/operations/agent-port-tls.md
 * tells an operator to: the repository's file with each backend's `server` line repeated per
 * instance (HAProxy's default balance is round robin). One port: the file itself.
 */
function edgeConfigFor(agentPorts: number[], certDir: string): string {
  if (agentPorts.length === 1) return HAPROXY_CONFIG;
  const text = readFileSync(HAPROXY_CONFIG, "utf8");
  const line = /^( *)server fleet "\$\{AGENT_PORT_ADDR\}"(.*)$/gm;
  if (!line.test(text)) throw new Error(`${HAPROXY_CONFIG} has no 'server fleet "\${AGENT_PORT_ADDR}"' line to repeat`);
  const repeated = text.replace(line, (_, indent: string, rest: string) =>
    agentPorts.map((port, i) => `${indent}server fleet${i + 1} "127.0.0.1:${port}"${rest}`).join("\n"),
  );
  const file = path.join(certDir, "haproxy.cfg");
  writeFileSync(file, repeated);
  return file;
}

/**
 * Starts HAProxy in the foreground, in master-worker mode as its container images run it, in
 * front of one agent port or several (instances of one fleet), and waits until its frontend
 * completes a TLS handshake.
 */
export async function startHaproxyEdge(certDir: string, agentPort: number | number[]): Promise<HaproxyEdge> {
  requireHaproxy();
  const port = await freePort();
  const agentPorts = Array.isArray(agentPort) ? agentPort : [agentPort];
  const env = edgeEnvironment(certDir, port, agentPorts[0]!);
  let output = "";
  const child: ChildProcess = spawn(HAPROXY, ["-W", "-db", "-f", edgeConfigFor(agentPorts, certDir)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const handshake = () =>
    new Promise<boolean>((resolve) => {
      const s = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => (s.end(), resolve(true)));
      s.on("error", () => resolve(false));
    });
  await until("HAProxy to accept TLS", async () => {
    if (child.exitCode !== null) throw new Error(`HAProxy exited (${child.exitCode}):\n${output}`);
    return handshake();
  });
  return {
    port,
    pid: child.pid!,
    adminSocket: env.EDGE_ADMIN_SOCKET!,
    reload: () => child.kill("SIGUSR2"),
    logs: () => output,
    async stop() {
      process.removeListener("exit", kill);
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}
