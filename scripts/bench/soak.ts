// npm run bench:soak -- --clusters 10000 --interval 10 --minutes 5 [--engine postgres]
//
// The fleet goal (docs/capacity.md) measured end to end: a fresh production server (needs `npx next
// build`), a registration token, and the simulator in its own process (so its CPU is measured
// apart) registering and heartbeating every cluster. Two phases:
//   ramp: until every cluster is registered and has heartbeated (no Pending left; goal <= 3 min)
//   soak: --minutes of steady heartbeats, polling the admin API for Pending and NotReady (no
//         faults are injected, so every NotReady is a false one), counting the simulator's
//         errors by code and its heartbeat latencies, sampling the RSS and CPU of every server
//         process (the server's whole process tree, plus --extra-pid) and of the simulator.
//   restart (--restart-at): the server is stopped with SIGTERM while the fleet keeps running and
//         started again on the same ports and database; the recovery is measured apart from the
//         steady soak (its errors and latencies are not the soak's).
// Exits 1 when a goal is missed. A benchmark, not part of npm test. Loopback only.
//
// Flags (small defaults so a plain `npm run bench:soak` finishes in about two minutes):
//   --clusters N      simulated clusters (default 500)
//   --interval S      heartbeat interval in seconds (default 10)
//   --minutes M       length of the soak after the ramp (default 1)
//   --engine E        sqlite (default) or postgres
//   --concurrency C   registrations in flight (default 16)
//   --key-pool K      RSA keys shared by the simulated clusters (default 16)
//   --port P          console on P, agent port on P+1 (default: free ports)
//   --profile DIR     write --cpu-prof profiles to DIR/server and DIR/simulator (one per thread)
//   --restart-at S    S seconds into the soak, restart the server and measure the recovery
//   --extra-pid PID   a process to count with the server's (an HAProxy in front); repeatable
//   --workers N       AGENT_WORKERS=N in the server's environment (agent-port worker processes)
//   --instances N     N instances of the fleet on one PostgreSQL database (--engine postgres --edge):
//                     HAProxy balances the agent port over them; every instance's processes count
//   --close-connections  each simulated agent opens a new connection per request, resuming its TLS
//                     session, instead of keeping one open (agents at a 60 s interval, item 4)
//   --ramp-limit S    start the soak after S seconds even if the ramp is not done (default 240)
//   --edge            HAProxy (deploy/haproxy/haproxy.cfg) in front of the agent port: the fleet talks
//                     to it, and its processes count with the server's (goal <= 700 MB together)
import { execFile, fork } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { startFleetServer, TEST_KEK, type FleetServer } from "../../tests/helpers/fleet-server";
import { startHaproxyEdge } from "../../tests/helpers/haproxy-edge";
import { edgeBackendIdentity } from "../../lib/server/pki/edge-certificates";
import { ProcessGroup, RssPeaks, describeRss } from "./process-tree";
import { restartAndRecover } from "./soak-restart";
import type { SoakMark, SoakReport, SoakSimulatorConfig } from "./soak-simulator";

// Issue 38's goals for 10,000 clusters at 10 s on 2 cores: memory of every server process together
// <= 1 GB, or <= 700 MB with the TLS edge in front (its memory counted through --extra-pid).
const GOALS = { rampSeconds: 120, p99Ms: 100, rssMb: 1000, rssWithEdgeMb: 700, consoleMs: 1500 } as const;

const { values: flags } = parseArgs({
  options: {
    clusters: { type: "string", default: "500" },
    interval: { type: "string", default: "10" },
    minutes: { type: "string", default: "1" },
    engine: { type: "string", default: "sqlite" },
    concurrency: { type: "string", default: "16" },
    "key-pool": { type: "string", default: "16" },
    port: { type: "string" },
    profile: { type: "string" },
    "restart-at": { type: "string" },
    "extra-pid": { type: "string", multiple: true },
    workers: { type: "string" },
    edge: { type: "boolean", default: false },
    instances: { type: "string", default: "1" },
    "close-connections": { type: "boolean", default: false },
    "ramp-limit": { type: "string" },
  },
});

function positive(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number (got "${value}")`);
  return n;
}

const CLUSTERS = Math.round(positive("clusters", flags.clusters));
const INTERVAL = positive("interval", flags.interval);
const MINUTES = positive("minutes", flags.minutes);
const ENGINE = flags.engine;
if (ENGINE !== "sqlite" && ENGINE !== "postgres") throw new Error(`--engine must be sqlite or postgres (got "${ENGINE}")`);
const PORT = flags.port === undefined ? undefined : Math.round(positive("port", flags.port));
const PROFILE_DIR = flags.profile ? path.resolve(flags.profile) : undefined;
const RESTART_AT = flags["restart-at"] === undefined ? undefined : positive("restart-at", flags["restart-at"]);
if (RESTART_AT !== undefined && RESTART_AT >= MINUTES * 60)
  throw new Error(`--restart-at ${RESTART_AT} is past the end of a ${MINUTES} min soak`);
const EXTRA_PIDS = (flags["extra-pid"] ?? []).map((p) => Math.round(positive("extra-pid", p)));
const EDGE = flags.edge === true;
const rssGoalMb = EXTRA_PIDS.length || EDGE ? GOALS.rssWithEdgeMb : GOALS.rssMb;
// How long the ramp may run before the soak starts anyway (a fleet larger than a ramp goal covers).
const RAMP_LIMIT_SECONDS =
  flags["ramp-limit"] === undefined ? GOALS.rampSeconds * 2 : positive("ramp-limit", flags["ramp-limit"]);
const INSTANCES = Math.round(positive("instances", flags.instances));
if (INSTANCES > 1 && (ENGINE !== "postgres" || !EDGE))
  throw new Error("--instances above 1 needs --engine postgres (one shared database) and --edge (HAProxy balances them)");
if (INSTANCES > 1 && RESTART_AT !== undefined) throw new Error("--restart-at restarts the only instance: not with --instances");
const WORKERS = flags.workers === undefined ? undefined : Number(flags.workers);
if (WORKERS !== undefined && !(Number.isInteger(WORKERS) && WORKERS >= 0))
  throw new Error(`--workers must be a whole number >= 0 (got "${flags.workers}")`);

// ---- numbers ------------------------------------------------------------------------------

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function diffCounts(now: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [code, n] of Object.entries(now)) if (n - (before[code] ?? 0) > 0) out[code] = n - (before[code] ?? 0);
  return out;
}

const fmtCounts = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ") || "none";
const elapsed = (from: number) => `${((performance.now() - from) / 1000).toFixed(0)}s`;

// ---- the admin API ------------------------------------------------------------------------

/** Clusters with `status` (all without), exact up to 1,000 for a status filter (then ">= 1000"). */
async function countClusters(server: FleetServer, status?: string): Promise<{ n: number; capped: boolean }> {
  const res = await server.api("GET", `/api/v1/clusters?limit=1${status ? `&status=${status}` : ""}`);
  if (res.status !== 200) throw new Error(`GET /api/v1/clusters answered ${res.status}`);
  const body = res.body as { total: number; totalCapped: boolean };
  return { n: body.total, capped: body.totalCapped };
}
const shown = (c: { n: number; capped: boolean }) => `${c.capped ? ">=" : ""}${c.n}`;

/** A server's /api/metrics exposition (loopback: no credentials needed). */
async function metricsOf(server: FleetServer): Promise<string> {
  return (await fetch(`${server.consoleUrl}/api/metrics`)).text();
}

/** The servers' event-loop delay since the previous scrape, in ms, the worst of them (GET /api/metrics, loopback). */
async function eventLoopDelay(...servers: FleetServer[]): Promise<{ p99: number; max: number }> {
  const worst = { p99: 0, max: 0 };
  for (const server of servers) {
    const text = await metricsOf(server);
    const value = (q: string) =>
      Number(new RegExp(`^fleet_event_loop_delay_seconds\\{quantile="${q}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? NaN) * 1000;
    worst.p99 = Math.max(worst.p99, value("0.99"));
    worst.max = Math.max(worst.max, value("1"));
  }
  return worst;
}

/** The server's own memory split (fleet_process_memory_bytes), in MB: what of the RSS is V8 heap. */
async function memorySplit(server: FleetServer): Promise<string> {
  const text = await metricsOf(server);
  const mb = (kind: string) =>
    Number(new RegExp(`^fleet_process_memory_bytes\\{kind="${kind}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? NaN) / 2 ** 20;
  return `heap used ${mb("heap_used").toFixed(0)} of ${mb("heap_total").toFixed(0)} MB, external ${mb("external").toFixed(0)} MB`;
}

/**
 * Counters from /api/metrics that say where the server's time went: each background job's runs
 * and seconds (on SQLite a job's run time is event-loop time: better-sqlite3 is synchronous) and
 * the signing admission's outcomes (refused: limits full, lagging: event loop behind).
 */
async function serverCounters(...servers: FleetServer[]): Promise<Map<string, number>> {
  const counters = new Map<string, number>();
  const add = (key: string, value: string) => counters.set(key, (counters.get(key) ?? 0) + Number(value));
  for (const server of servers) {
    const text = await metricsOf(server);
    for (const m of text.matchAll(/^fleet_job_duration_seconds_(sum|count)\{job="([^"]+)"\} (\S+)$/gm))
      add(`job ${m[2]} ${m[1]}`, m[3]!);
    for (const m of text.matchAll(/^fleet_signing_admission_total\{outcome="([^"]+)"\} (\S+)$/gm))
      add(`admission ${m[1]}`, m[2]!);
    for (const m of text.matchAll(/^fleet_agent_tls_handshakes_total\{resumed="(true|false)"\} (\S+)$/gm))
      add(`handshakes ${m[1] === "true" ? "resumed" : "full"}`, m[2]!);
    for (const m of text.matchAll(/^fleet_heartbeat_duration_seconds_bucket\{[^}]*le="([^"]+)"[^}]*\} (\S+)$/gm))
      add(`heartbeat le ${m[1]}`, m[2]!);
  }
  return counters;
}

/** The console pages an operator keeps open during the soak, by their path. */
const CONSOLE_PAGES = { overview: "/", "cluster list": "/clusters" } as const;

/**
 * How long the server takes to render a console page for the admin, in ms: until the last byte of
 * the streamed HTML (the browser's own work after that is bench:overview's and bench:pages').
 */
async function pageMs(server: FleetServer, cookie: string, pagePath: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.consoleUrl}${pagePath}`, { headers: { cookie } });
  await res.text();
  if (res.status !== 200) throw new Error(`GET ${pagePath} answered ${res.status}`);
  return performance.now() - started;
}

/** Heartbeats each instance answered (fleet_heartbeats_total, every status), in the order given. */
async function heartbeatsByInstance(servers: FleetServer[]): Promise<number[]> {
  return Promise.all(
    servers.map(async (server) => {
      const text = await metricsOf(server);
      return [...text.matchAll(/^fleet_heartbeats_total\{[^}]*\} (\S+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    }),
  );
}

/** What changed between two serverCounters() readings, as printable lines. */
function counterLines(before: Map<string, number>, after: Map<string, number>): string[] {
  const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  const jobs = [...new Set([...after.keys()].filter((k) => k.startsWith("job ")).map((k) => k.split(" ")[1]!))].sort();
  const admission = [...after.keys()].filter((k) => k.startsWith("admission ")).sort();
  return [
    `  background jobs (runs, mean, total): ${jobs
      .map((j) => {
        const [runs, secs] = [delta(`job ${j} count`), delta(`job ${j} sum`)];
        return `${j} ${runs} x ${runs ? ((secs / runs) * 1000).toFixed(1) : "-"} ms = ${secs.toFixed(1)} s`;
      })
      .join("; ")}`,
    `  TLS handshakes on the agent port: full ${delta("handshakes full")}, resumed ${delta("handshakes resumed")}`,
    `  heartbeat handling in the server (fleet_heartbeat_duration_seconds; the latency above adds the TLS handshake, the queues and the load client's own delays): ${handlingLine(before, after)}`,
    `  signing admission: ${admission.map((k) => `${k.slice("admission ".length)} ${delta(k)}`).join(", ") || "none"}`,
  ];
}

/** p50 and p99 of the heartbeats the server handled between two readings, as bucket bounds. */
function handlingLine(before: Map<string, number>, after: Map<string, number>): string {
  const buckets = [...after.keys()]
    .filter((k) => k.startsWith("heartbeat le "))
    .map((k) => ({ le: k.slice("heartbeat le ".length), n: (after.get(k) ?? 0) - (before.get(k) ?? 0) }))
    .sort((a, b) => Number(a.le) - Number(b.le));
  const total = buckets.at(-1)?.n ?? 0;
  if (!total) return "none";
  const within = (q: number) => {
    const le = buckets.find((b) => b.n >= q * total)!.le;
    return le === "+Inf" ? `> ${Number(buckets.at(-2)!.le) * 1000} ms` : `<= ${Number(le) * 1000} ms`;
  };
  return `${total} heartbeats, p50 ${within(0.5)}, p99 ${within(0.99)}`;
}

// ---- the edge -----------------------------------------------------------------------------

/** HAProxy in front of the servers' agent ports, with the files `npm run edge:certificates` writes. */
async function startEdge(servers: FleetServer[], certDir: string) {
  const server = servers[0]!;
  await promisify(execFile)(
    process.execPath,
    ["--import", "./runtime/register-hooks.mjs", "--import", "tsx", "scripts/edge-certificates.ts", "--out", certDir],
    { env: { ...process.env, DATABASE_URL: server.db.url, FLEET_CA_KEK: TEST_KEK, FLEET_CA_KEK_FILE: "" } },
  );
  const edge = await startHaproxyEdge(
    certDir,
    servers.map((s) => s.agentPort),
  );
  console.log(
    `edge: HAProxy pid ${edge.pid} on https://127.0.0.1:${edge.port} in front of ${servers.map((s) => s.agentUrl).join(", ")}`,
  );
  return edge;
}

// ---- the run ------------------------------------------------------------------------------

async function main(): Promise<number> {
  console.log(
    `bench:soak  ${CLUSTERS} clusters, ${INTERVAL}s interval, ${MINUTES} min soak, ${ENGINE}, loopback` +
      (PROFILE_DIR ? `, profiles in ${PROFILE_DIR}` : ""),
  );
  process.env.TEST_ENGINE = ENGINE;
  // One directory per process: every thread (the module loader's, workers) writes its own profile.
  const profileArgs = (name: string) => (PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.join(PROFILE_DIR, name)}`] : []);
  // Without --profile the server takes FLEET_SERVER_NODE_ARGS (tests/helpers/fleet-server.ts), to try V8 flags.
  const startedAt = performance.now();
  // With --edge: HAProxy's own client certificate first, so the server starts with it pinned.
  const certDir = EDGE ? mkdtempSync(path.join(tmpdir(), "fleet-soak-edge-")) : null;
  const proxy = certDir ? edgeBackendIdentity() : null;
  if (certDir && proxy) writeFileSync(path.join(certDir, "backend-client.pem"), proxy.pem, { mode: 0o600 });
  const serverEnv = {
    ...(proxy
      ? {
          TRUSTED_PROXY_CIDRS: "127.0.0.1/32",
          TRUSTED_CLIENT_CERT_PROXY_CIDRS: "127.0.0.1/32",
          CLIENT_CERT_PROXY_FINGERPRINTS: proxy.fingerprint,
        }
      : {}),
    LOG_LEVEL: "warn",
    CHECK_API_RESPONSES: "off",
    CONSOLE_WARMUP: "on", // as shipped
    // One source address registers the whole fleet: the per-address limit is not what is measured.
    REGISTRATION_RATE_PER_MINUTE: "1000000",
    REGISTRATION_RATE_BURST: "100000",
    ...(WORKERS === undefined ? {} : { AGENT_WORKERS: String(WORKERS) }),
  };
  const server = await startFleetServer(serverEnv, {
    ports: PORT ? { console: PORT, agent: PORT + 1 } : undefined,
    nodeArgs: PROFILE_DIR ? profileArgs("server") : undefined,
  });
  // Further instances of the same fleet: the same database (and so the same CA), their own ports.
  const servers = [server];
  for (let i = 1; i < INSTANCES; i++)
    servers.push(
      await startFleetServer(serverEnv, {
        database: server.db,
        nodeArgs: PROFILE_DIR ? profileArgs(`server-${i + 1}`) : undefined,
      }),
    );
  const edge = certDir ? await startEdge(servers, certDir) : null;
  // Every process of every instance (a pid changes at a restart; workers are children), the edge's and --extra-pid.
  const serverProcesses = () => new ProcessGroup(() => [...servers.map((s) => s.pid()), edge?.pid], EXTRA_PIDS);
  console.log(
    `server pid${servers.length > 1 ? "s" : ""} ${servers.map((s) => s.pid()).join(", ")}${EXTRA_PIDS.length ? ` (+ ${EXTRA_PIDS.join(", ")})` : ""} ready in ${elapsed(startedAt)}: console ${server.consoleUrl}, agents ${server.agentUrl}, RSS at start ${describeRss(serverProcesses().sample())}`,
  );

  // The server's settings match the fleet's interval, with the defaults' margin (15 s against a
  // 60 s NotReady threshold): at 60 s with the default threshold, an agent's ±10 % jitter alone
  // would show it NotReady.
  const settings = {
    heartbeatIntervalSeconds: INTERVAL,
    notReadyThresholdSeconds: Math.max(60, Math.ceil(INTERVAL * 4)),
  };
  const patched = await server.api("PATCH", "/api/v1/settings", settings);
  if (patched.status !== 200) throw new Error(`the settings answered ${patched.status}: ${JSON.stringify(patched.body)}`);
  console.log(
    `settings: heartbeat interval ${settings.heartbeatIntervalSeconds}s, NotReady threshold ${settings.notReadyThresholdSeconds}s`,
  );

  const token = await server.api("POST", "/api/v1/registration-tokens", {
    name: "bench-soak",
    maxClusters: CLUSTERS,
    ttlSeconds: 24 * 3600,
  });
  if (token.status !== 201) throw new Error(`minting the token answered ${token.status}: ${JSON.stringify(token.body)}`);

  const sim = fork(path.join(import.meta.dirname, "soak-simulator.ts"), [], {
    execArgv: [...profileArgs("simulator"), "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let registered = 0;
  let errors: Record<string, number> = {};
  let latencies: number[] = [];
  // The load client's own event-loop delay: every latency it measures includes it.
  let simLoop = { p99: 0, max: 0 };
  let latest: SoakReport | null = null;
  let reportListener: ((report: SoakReport) => void) | null = null;
  sim.on("message", (m: SoakReport | { type: "progress"; message: string } | { type: "started" }) => {
    if (m.type === "progress") console.log(`[sim] ${m.message}`);
    if (m.type !== "report") return;
    latest = m;
    registered = m.registered;
    errors = m.errors;
    for (const ms of m.latencies) latencies.push(ms);
    simLoop = { p99: Math.max(simLoop.p99, m.loopDelay.p99), max: Math.max(simLoop.max, m.loopDelay.max) };
    reportListener?.(m);
  });
  const simExited = new Promise<void>((resolve) => sim.once("exit", () => resolve()));
  const config: SoakSimulatorConfig = {
    server: edge ? `https://127.0.0.1:${edge.port}` : server.agentUrl,
    caPem: server.caPem,
    token: (token.body as { token: string }).token,
    clusters: CLUSTERS,
    intervalSeconds: INTERVAL,
    concurrency: Math.round(positive("concurrency", flags.concurrency)),
    keyPool: Math.round(positive("key-pool", flags["key-pool"])),
    closeConnections: flags["close-connections"] === true,
  };
  sim.send(config);

  const failures: string[] = [];
  try {
    // ---- ramp
    const rampCounters = await serverCounters(...servers);
    const rampStart = performance.now();
    const rampServerCpu = serverProcesses();
    const rampSimCpu = new ProcessGroup(() => [sim.pid]);
    const rampLimitMs = RAMP_LIMIT_SECONDS * 1000;
    let rampSeconds = NaN;
    for (;;) {
      await new Promise((r) => setTimeout(r, 2000));
      const [total, pending] = [await countClusters(server), await countClusters(server, "Pending")];
      if (total.n >= CLUSTERS && pending.n === 0) {
        rampSeconds = (performance.now() - rampStart) / 1000;
        break;
      }
      if (performance.now() - rampStart > rampLimitMs) break;
      if (Math.round((performance.now() - rampStart) / 1000) % 10 < 2)
        console.log(
          `[ramp ${elapsed(rampStart)}] registered ${total.n}/${CLUSTERS} (simulator ${registered}), pending ${shown(pending)}, errors ${fmtCounts(errors)}`,
        );
    }
    const rampLatencies = latencies.sort((a, b) => a - b);
    console.log(
      `ramp: ${Number.isNaN(rampSeconds) ? `NOT complete after ${rampLimitMs / 1000}s` : `every cluster registered and heartbeating after ${rampSeconds.toFixed(1)}s`}` +
        ` (goal <= ${GOALS.rampSeconds}s); heartbeat p50 ${percentile(rampLatencies, 50).toFixed(1)} ms p99 ${percentile(rampLatencies, 99).toFixed(1)} ms;` +
        ` CPU server ${rampServerCpu.lapCpu().toFixed(0)}% simulator ${rampSimCpu.lapCpu().toFixed(0)}%; errors ${fmtCounts(errors)}`,
    );
    let soakCounters = await serverCounters(...servers);
    for (const line of counterLines(rampCounters, soakCounters)) console.log(`ramp ${line.trim()}`);
    if (Number.isNaN(rampSeconds) || rampSeconds > GOALS.rampSeconds) failures.push("ramp");

    console.log(`ramp load client's event loop delay: worst 1 s window p99 ${simLoop.p99} ms, max ${simLoop.max} ms`);

    // ---- soak
    latencies = [];
    simLoop = { p99: 0, max: 0 };
    const errorsBefore = { ...errors };
    const soakStart = performance.now();
    const serverCpu = serverProcesses();
    const simCpu = new ProcessGroup(() => [sim.pid]);
    const windowServerCpu = serverProcesses();
    const windowSimCpu = new ProcessGroup(() => [sim.pid]);
    let maxPending = 0;
    let maxNotReady = 0;
    const cookie = await server.adminCookie();
    const pageTimes = Object.fromEntries(Object.keys(CONSOLE_PAGES).map((name) => [name, [] as number[]]));
    await eventLoopDelay(...servers); // starts the window
    const loop = { p99: 0, max: 0 };
    const rss = new RssPeaks();
    rss.add(serverCpu.sample());
    let lastLine = soakStart;
    let restart: { lines: string[]; ms: number } | null = null;
    while (performance.now() - soakStart < MINUTES * 60_000) {
      await new Promise((r) => setTimeout(r, 5000));
      if (RESTART_AT !== undefined && !restart && performance.now() - soakStart >= RESTART_AT * 1000) {
        // The restart's errors, latencies and NotReady polls are its own, not the steady soak's.
        const [steadyLatencies, errorsAt, from] = [latencies, { ...errors }, performance.now()];
        latencies = [];
        const outcome = await restartAndRecover({
          server,
          mark: () => sim.send({ type: "mark" } satisfies SoakMark),
          onReport: (listener) => (reportListener = listener),
          latest: () => latest,
          countNotReady: async () => (await countClusters(server, "NotReady")).n,
        });
        const restartLatencies = latencies.sort((a, b) => a - b);
        latencies = steadyLatencies;
        for (const [code, n] of Object.entries(diffCounts(errors, errorsAt))) errorsBefore[code] = (errorsBefore[code] ?? 0) + n;
        outcome.lines.push(
          `  heartbeat latency  p50 ${percentile(restartLatencies, 50).toFixed(1)} ms  p99 ${percentile(restartLatencies, 99).toFixed(1)} ms  max ${(restartLatencies[restartLatencies.length - 1] ?? NaN).toFixed(1)} ms (${restartLatencies.length} answered)`,
        );
        for (const line of outcome.lines) console.log(`[restart] ${line}`);
        failures.push(...outcome.missed);
        restart = { lines: outcome.lines, ms: performance.now() - from };
        // Counters start again with the new process.
        soakCounters = await serverCounters(...servers);
        await eventLoopDelay(...servers);
        continue;
      }
      const [pending, notReady] = [await countClusters(server, "Pending"), await countClusters(server, "NotReady")];
      maxPending = Math.max(maxPending, pending.n);
      maxNotReady = Math.max(maxNotReady, notReady.n);
      for (const [name, pagePath] of Object.entries(CONSOLE_PAGES)) pageTimes[name]!.push(await pageMs(server, cookie, pagePath));
      const samples = serverCpu.sample();
      rss.add(samples);
      const delay = await eventLoopDelay(...servers);
      loop.p99 = Math.max(loop.p99, delay.p99);
      loop.max = Math.max(loop.max, delay.max);
      if (performance.now() - lastLine >= 30_000) {
        lastLine = performance.now();
        const sorted = [...latencies].sort((a, b) => a - b);
        console.log(
          `[soak ${elapsed(soakStart)}] pending ${shown(pending)} notReady ${shown(notReady)} | ${(latencies.length / ((performance.now() - soakStart - (restart?.ms ?? 0)) / 1000)).toFixed(0)} hb/s p50 ${percentile(sorted, 50).toFixed(1)} ms p99 ${percentile(sorted, 99).toFixed(1)} ms | RSS ${describeRss(samples)} (main: ${await memorySplit(server)}) | CPU server ${windowServerCpu.lapCpu().toFixed(0)}% sim ${windowSimCpu.lapCpu().toFixed(0)}% | errors ${fmtCounts(diffCounts(errors, errorsBefore))}`,
        );
      }
    }
    // Without the restart's window: its heartbeats and errors are reported with it.
    const soakSeconds = (performance.now() - soakStart - (restart?.ms ?? 0)) / 1000;
    const sorted = latencies.sort((a, b) => a - b);
    const soakErrors = diffCounts(errors, errorsBefore);
    const errorCount = Object.values(soakErrors).reduce((a, b) => a + b, 0);
    const p99 = percentile(sorted, 99);
    const [serverPct, simPct] = [serverCpu.lapCpu(), simCpu.lapCpu()];
    const endSamples = serverCpu.sample();
    const goal = (ok: boolean, name: string) => {
      if (!ok) failures.push(name);
      return ok ? "ok" : "MISSED";
    };
    console.log(
      [
        ``,
        `soak: ${soakSeconds.toFixed(0)}s, ${sorted.length} heartbeats (${(sorted.length / soakSeconds).toFixed(0)}/s of ${(CLUSTERS / INTERVAL).toFixed(0)}/s expected)`,
        `  ramp              ${Number.isNaN(rampSeconds) ? "incomplete" : `${rampSeconds.toFixed(1)}s`}  (goal <= ${GOALS.rampSeconds}s)  ${failures.includes("ramp") ? "MISSED" : "ok"}`,
        `  pending (max)     ${maxPending}  (goal 0)  ${goal(maxPending === 0, "pending")}`,
        `  false NotReady    ${maxNotReady}  (goal 0; no faults injected, max over polls)  ${goal(maxNotReady === 0, "notReady")}`,
        ...Object.entries(pageTimes).map(([name, times]) => {
          const slowest = Math.max(...times);
          return `  console ${name.padEnd(13)} p50 ${percentile(
            [...times].sort((a, b) => a - b),
            50,
          ).toFixed(
            0,
          )} ms  max ${slowest.toFixed(0)} ms over ${times.length} loads, rendered by the server  (goal <= ${GOALS.consoleMs} ms)  ${goal(slowest <= GOALS.consoleMs, `console ${name}`)}`;
        }),
        `  errors            ${errorCount} ${errorCount ? fmtCounts(soakErrors) : ""} (goal 0)  ${goal(errorCount === 0, "errors")}`,
        `  heartbeat latency p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${p99.toFixed(1)} ms  max ${(sorted[sorted.length - 1] ?? NaN).toFixed(1)} ms  (goal p99 <= ${GOALS.p99Ms} ms)  ${goal(p99 <= GOALS.p99Ms, "p99")}`,
        `  server RSS (max)  ${rss.maxTotalMb.toFixed(0)} MB, every server process together${EXTRA_PIDS.length ? " with --extra-pid" : ""}  (goal <= ${rssGoalMb} MB)  ${goal(rss.maxTotalMb <= rssGoalMb, "rss")}; at the end ${describeRss(endSamples)}, main ${await memorySplit(server)}`,
        `    each process (max): ${rss.describe()}`,
        `  server event loop delay: worst 5 s window p99 ${loop.p99.toFixed(0)} ms, max ${loop.max.toFixed(0)} ms (what the server itself held up)`,
        `  load client's event loop delay: worst 1 s window p99 ${simLoop.p99} ms, max ${simLoop.max} ms (in every latency above)`,
        `  CPU (% of a core) server ${serverPct.toFixed(0)}% (every server process)  simulator ${simPct.toFixed(0)}% (RSS ${simCpu
          .sample()
          .reduce((mb, p) => mb + p.rssMb, 0)
          .toFixed(0)} MB)${ENGINE === "postgres" ? "  (PostgreSQL's own processes not counted)" : ""}`,
        ...(servers.length > 1
          ? [`  heartbeats answered by each instance (since start): ${(await heartbeatsByInstance(servers)).join(", ")}`]
          : []),
        ...counterLines(soakCounters, await serverCounters(...servers)).map((l) => (restart ? `${l} (since the restart)` : l)),
        ...(restart?.lines ?? []),
        failures.length ? `goals missed: ${failures.join(", ")}` : `every goal met`,
      ].join("\n"),
    );
  } finally {
    sim.kill("SIGTERM");
    await Promise.race([simExited, new Promise((r) => setTimeout(r, 15_000))]);
    if (sim.exitCode === null) sim.kill("SIGKILL");
    await edge?.stop();
    for (const s of servers.reverse()) await s.stop();
  }
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
