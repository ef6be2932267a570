// npm run bench:heartbeat — heartbeat throughput on the agent port, against a bare mutual-TLS
// Node server as the baseline, with the same load generator and connection count. Prints
// numbers; asserts nothing. Loopback only.
//   BENCH_SECONDS (default 15), BENCH_CONNECTIONS (default 64), BENCH_WORKERS (default "0 <cores>")
// The server's CPU is summed over its processes (agent-port workers included).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { makeCsr } from "../../tests/helpers/csr";
import { heartbeatBody, mintToken, registerCluster, SYSTEM_POOL } from "../../tests/helpers/agent-client";
import { startFleetServer, type FleetServer } from "../../tests/helpers/fleet-server";
import { loadOrCreateFleetCa } from "../../lib/server/pki/fleet-ca";
import { issueClientCertificate } from "../../lib/server/pki/client-certificate";
import { issueServerCertificate } from "../../lib/server/pki/server-certificate";
import { fmt, postgresReachable, runLoad, type LoadResult, type Target } from "./load";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
/** AGENT_WORKERS values to compare in one run (0: the agent port in the main process). */
const WORKERS = (process.env.BENCH_WORKERS ?? `0 ${availableParallelism()}`).split(/[ ,]+/).filter(Boolean).map(Number);

const heartbeat = JSON.stringify(
  heartbeatBody({
    nodePools: [
      SYSTEM_POOL,
      {
        name: "workers",
        nodeCount: 12,
        readyNodes: 12,
        kubeletVersion: "1.30.2",
        instanceType: "c6i.2xlarge",
        cpuCores: 96,
        memoryGiB: 192,
      },
    ],
    workloads: { pods: 420, namespaces: 31 },
  }),
);

/**
 * CPU seconds process `pid` and its child processes (agent-port workers) have used so far: their
 * main threads (where requests are answered) and all their threads. Linux /proc; null elsewhere.
 * Steadier than throughput on a shared machine.
 */
function cpuOf(pid: number | undefined): { main: number; all: number } | null {
  if (!pid) return null;
  try {
    const ticks = (stat: string) => {
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in USER_HZ (100)
    };
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(/\s+/).filter(Boolean).map(Number);
    let main = 0;
    let all = 0;
    for (const p of [pid, ...children]) {
      main += ticks(readFileSync(`/proc/${p}/task/${p}/stat`, "utf8"));
      all += ticks(readFileSync(`/proc/${p}/stat`, "utf8"));
    }
    return { main, all };
  } catch {
    return null;
  }
}

type Measured = LoadResult & { cpu: string };

/** runLoad, plus the server's CPU per answered request over the measured window (after the warm-up). */
async function measure(targets: Target[], pid: number | undefined): Promise<Measured> {
  const at: { before?: ReturnType<typeof cpuOf> } = {};
  const warmup = setTimeout(() => (at.before = cpuOf(pid)), 2000);
  const r = await runLoad(targets, SECONDS, 2);
  clearTimeout(warmup);
  const before = at.before;
  const after = cpuOf(pid);
  const us = (a: number, b: number) => ((a - b) * 1e6) / Math.max(1, r.requests);
  const cpu =
    before && after
      ? `  server CPU/req main ${us(after.main, before.main).toFixed(0)} us, all ${us(after.all, before.all).toFixed(0)} us`
      : "";
  return { ...r, cpu };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function bare(): Promise<Measured> {
  const store = new Map<string, string>();
  const ca = await loadOrCreateFleetCa({
    get: async (n) => store.get(n) ?? null,
    create: async (n, v) => (store.has(n) ? false : (store.set(n, v), true)),
  });
  const dir = mkdtempSync(path.join(tmpdir(), "bench-bare-"));
  const serverCert = issueServerCertificate(ca, ["127.0.0.1"]);
  writeFileSync(path.join(dir, "cert.pem"), serverCert.certPem);
  writeFileSync(path.join(dir, "key.pem"), serverCert.keyPem);
  writeFileSync(path.join(dir, "ca.pem"), ca.certPem);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "scripts/bench/bare-server.ts",
      ...["cert", "key", "ca"].map((f) => path.join(dir, `${f}.pem`)),
      String(port),
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise((r) => child.stdout!.once("data", r));
  const targets: Target[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const { csr: _csr, key } = makeCsr();
    const { createPublicKey } = await import("node:crypto");
    const publicKeyPem = createPublicKey(key).export({ type: "spki", format: "pem" }).toString();
    const cert = issueClientCertificate(ca, { publicKeyPem, clusterId: `bare-${i}`, validityDays: 1 });
    targets.push({
      agent: new https.Agent({ keepAlive: true, maxSockets: 1, ca: ca.certPem, cert: cert.pem, key }),
      host: "127.0.0.1",
      port,
      path: "/",
      body: heartbeat,
    });
  }
  try {
    return await measure(targets, child.pid);
  } finally {
    child.kill("SIGTERM");
    targets.forEach((t) => t.agent.destroy());
  }
}

/** Registers `count` agents through the protocol; one heartbeat target (own connection and certificate) each. */
export async function registerAgents(server: FleetServer, count: number): Promise<Target[]> {
  const token = await mintToken(server, { name: "bench", maxClusters: count });
  const targets: Target[] = [];
  for (let i = 0; i < count; i++) {
    const { client } = await registerCluster(server, `bench-${i}`, {
      token,
      body: { caFingerprint: `sha256:${i.toString(16).padStart(64, "0")}` },
    });
    targets.push({
      agent: new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem, ...client }),
      host: "127.0.0.1",
      port: server.agentPort,
      path: "/api/agent/v1/heartbeat",
      body: heartbeat,
    });
  }
  return targets;
}

async function fleet(server: FleetServer): Promise<Measured> {
  const targets = await registerAgents(server, CONNECTIONS);
  try {
    return await measure(targets, server.pid());
  } finally {
    targets.forEach((t) => t.agent.destroy());
  }
}

async function main() {
  console.log(`bench:heartbeat  ${CONNECTIONS} connections, ${SECONDS}s per run (after 2s warm-up), loopback\n`);
  const base = await bare();
  console.log(`bare mutual-TLS   ${fmt(base)}${base.cpu}`);
  const engines: ("sqlite" | "postgres")[] = ["sqlite"];
  if (await postgresReachable()) engines.push("postgres");
  else console.log("postgres          not reachable: skipped");
  for (const engine of engines) {
    process.env.TEST_ENGINE = engine;
    for (const workers of WORKERS) {
      const server = await startFleetServer({ LOG_LEVEL: "warn", AGENT_WORKERS: String(workers) });
      try {
        const r = await fleet(server);
        const ratio = r.rps / base.rps;
        console.log(
          `heartbeat ${engine.padEnd(8)} workers ${workers}  ${fmt(r)}  ratio ${ratio.toFixed(2)}, p99 ${(r.p99 / base.p99).toFixed(2)}x${r.cpu}`,
        );
      } finally {
        await server.stop();
      }
    }
  }
}

// Run only as a script (scripts/bench/selector.ts imports the agents).
if (process.argv[1]?.endsWith("heartbeat.ts"))
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
