// npm run bench:connections — the memory a connected cluster costs. Two parts, both on loopback:
//   floor: a bare Node HTTPS server with the agent port's TLS settings (connection-floor-server.ts)
//          holding N idle kept-alive mutual-TLS connections;
//   real:  the product (production build) with N clusters seeded (seedAgents: real certificates),
//          each holding one kept-alive connection that heartbeats every --interval seconds.
// Prints RSS before and after, per connection, and the real server's split (V8 heap, external,
// the native rest) from fleet_process_memory_bytes. Asserts nothing.
//   --clusters N (1000), --interval S (10), --hold S (30: how long the fleet heartbeats before
//   the reading), --part floor|real|both (both), --engine sqlite|postgres (TEST_ENGINE).
// Connections come from a child process (connection-holder.mjs), so its memory is not counted.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { makeKey } from "../../tests/helpers/csr";
import { startFleetServer, TEST_KEK } from "../../tests/helpers/fleet-server";
import { seedAgents } from "../../tests/helpers/seed-rows";

const { values } = parseArgs({
  options: {
    clusters: { type: "string", default: "1000" },
    interval: { type: "string", default: "10" },
    hold: { type: "string", default: "30" },
    part: { type: "string", default: "both" },
    engine: { type: "string" },
    snapshots: { type: "string" },
  },
});
if (values.engine) process.env.TEST_ENGINE = values.engine;
const N = Number(values.clusters);
const INTERVAL = Number(values.interval);
const HOLD_MS = Number(values.hold) * 1000;
const MB = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
const KB = (b: number) => `${(b / 1024).toFixed(1)} KB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time (user + system) the process has used, in ms (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
}

/** Starts the holder; resolves once its N connections are open (each answered once). */
async function hold(target: { port: number; ca: string }, clients: { cert: string; key: string }[], interval: number) {
  const dir = mkdtempSync(path.join(tmpdir(), "fleet-conns-"));
  const file = path.join(dir, "clients.json");
  writeFileSync(file, JSON.stringify({ port: target.port, ca: target.ca, clients, interval }));
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "connection-holder.mjs"), file], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  child.stdout!.setEncoding("utf8");
  const [line] = (await once(child.stdout!, "data")) as [string];
  return { child, opened: line.trim() };
}

function stop(child: ChildProcess) {
  child.stdin?.end();
  child.kill();
}

async function floor() {
  const dir = mkdtempSync(path.join(tmpdir(), "fleet-floor-"));
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });
  ssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", f("ca.key"));
  ssl("req", "-x509", "-new", "-key", f("ca.key"), "-subj", "/CN=ca", "-days", "2", "-out", f("ca.pem"));
  ssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", f("srv.key"));
  ssl("req", "-new", "-key", f("srv.key"), "-subj", "/CN=localhost", "-out", f("srv.csr"));
  ssl(
    "x509",
    "-req",
    "-in",
    f("srv.csr"),
    "-CA",
    f("ca.pem"),
    "-CAkey",
    f("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-out",
    f("srv.pem"),
  );
  // Client certificates stay RSA, as the protocol says.
  ssl("genrsa", "-out", f("cli.key"), "2048");
  ssl("req", "-new", "-key", f("cli.key"), "-subj", "/CN=cl_floor", "-out", f("cli.csr"));
  ssl(
    "x509",
    "-req",
    "-in",
    f("cli.csr"),
    "-CA",
    f("ca.pem"),
    "-CAkey",
    f("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-out",
    f("cli.pem"),
  );
  const port = 28_000 + Math.floor(Math.random() * 900);
  const server = spawn(
    process.execPath,
    [
      "--expose-gc",
      "--import",
      "./runtime/register-hooks.mjs",
      "--import",
      "tsx",
      "scripts/bench/connection-floor-server.ts",
      f("srv.pem"),
      f("srv.key"),
      f("ca.pem"),
      String(port),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  server.stdout!.setEncoding("utf8");
  await once(server.stdout!, "data");
  const memory = async () => {
    server.stdin!.write("mem\n");
    const [line] = (await once(server.stdout!, "data")) as [string];
    return JSON.parse(line) as NodeJS.MemoryUsage & { open: number };
  };
  const before = await memory();
  const client = { cert: readFileSync(f("cli.pem"), "utf8"), key: readFileSync(f("cli.key"), "utf8") };
  const holder = await hold(
    { port, ca: readFileSync(f("ca.pem"), "utf8") },
    Array.from({ length: N }, () => client),
    INTERVAL,
  );
  await sleep(HOLD_MS);
  const after = await memory();
  stop(holder.child);
  server.stdin!.end();
  server.kill();
  console.log(
    `floor (bare Node ${process.version} HTTPS, agent TLS policy, ECDSA server cert), ${N} connections (${holder.opened}):`,
  );
  for (const k of ["rss", "heapUsed", "external", "arrayBuffers"] as const)
    console.log(`  ${k.padEnd(12)} ${MB(before[k])} -> ${MB(after[k])}, ${KB((after[k] - before[k]) / N)} per connection`);
  console.log(`  open connections: ${after.open}`);
}

async function metricsMemory(consoleUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${consoleUrl}/api/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^fleet_process_memory_bytes\{kind="(\w+)"\} (\d+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

/** Has the server write a heap snapshot into `dir` (--heapsnapshot-signal) and waits until it has. */
async function snapshot(pid: number, dir: string) {
  const count = () => readdirSync(dir).filter((f) => f.endsWith(".heapsnapshot")).length;
  const before = count();
  process.kill(pid, "SIGUSR2");
  while (count() === before) await sleep(500);
  // Written when the process answers again.
  await sleep(2000);
}

async function real() {
  const dir = values.snapshots ? path.resolve(values.snapshots) : null;
  if (dir) mkdirSync(dir, { recursive: true });
  const server = await startFleetServer(
    { LOG_LEVEL: "warn" },
    dir ? { nodeArgs: ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${dir}`] } : {},
  );
  try {
    const keys = Array.from({ length: 8 }, () => makeKey().privateKeyPem);
    const agents = await seedAgents(server.db, { count: N, prefix: "conn", keys, kek: TEST_KEK });
    await sleep(2000);
    if (dir) await snapshot(server.pid()!, dir);
    const before: Record<string, number> = { ...(await metricsMemory(server.consoleUrl)), rss: rssOf(server.pid()!) };
    const holder = await hold(
      { port: server.agentPort, ca: server.caPem },
      agents.map((a) => a.client),
      INTERVAL,
    );
    const cpuBefore = cpuMsOf(server.pid()!);
    await sleep(HOLD_MS);
    const cpuMs = cpuMsOf(server.pid()!) - cpuBefore;
    const after: Record<string, number> = { ...(await metricsMemory(server.consoleUrl)), rss: rssOf(server.pid()!) };
    if (dir) await snapshot(server.pid()!, dir);
    stop(holder.child);
    console.log(`real server (${server.db.engine}), ${N} clusters heartbeating every ${INTERVAL} s (${holder.opened}):`);
    for (const k of ["rss", "heap_used", "heap_total", "external", "array_buffers"])
      console.log(`  ${k.padEnd(13)} ${MB(before[k]!)} -> ${MB(after[k]!)}, ${KB((after[k]! - before[k]!) / N)} per cluster`);
    // What a setting that saves memory costs in CPU (the GC working harder): per heartbeat.
    const heartbeats = INTERVAL > 0 ? (N * HOLD_MS) / 1000 / INTERVAL : 0;
    console.log(
      `  server CPU while holding: ${(cpuMs / (HOLD_MS / 1000) / 10).toFixed(1)} % of a core, ${heartbeats ? (cpuMs / heartbeats).toFixed(3) : "-"} ms per heartbeat`,
    );
  } finally {
    await server.stop();
  }
}

if (values.part !== "real") await floor();
if (values.part !== "floor") await real();
process.exit(0);
