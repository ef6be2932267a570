// npm run bench:soak -- --clusters 10000 --interval 10 --minutes 5 [--engine postgres]
//
// The fleet goal (docs/capacity.md) measured end to end: a fresh production server (needs `npx next
// build`), a registration token, and the simulator in its own process (so its CPU is measured
// apart) registering and heartbeating every cluster. Two phases:
//   ramp: until every cluster is registered and has heartbeated (no Pending left; goal <= 3 min)
//   soak: --minutes of steady heartbeats, polling the admin API for Pending and NotReady (no
//         faults are injected, so every NotReady is a false one), counting the simulator's
//         errors by code and its heartbeat latencies, sampling the server's RSS and both CPUs.
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
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { startFleetServer, type FleetServer } from "../../tests/helpers/fleet-server";
import type { SoakReport, SoakSimulatorConfig } from "./soak-simulator";

const GOALS = { rampSeconds: 180, p99Ms: 100, rssMb: 500 } as const;

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

// ---- process accounting from /proc (Linux) ------------------------------------------------

const TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux this runs on

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

function rssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

class CpuMeter {
  private cpu0: number;
  private t0 = performance.now();
  constructor(private readonly pid: number | undefined) {
    this.cpu0 = cpuSeconds(pid);
  }
  /** Percent of one core since construction or the last `lap`. */
  lap(): number {
    const cpu = cpuSeconds(this.pid);
    const t = performance.now();
    const pct = ((cpu - this.cpu0) / ((t - this.t0) / 1000)) * 100;
    this.cpu0 = cpu;
    this.t0 = t;
    return pct;
  }
}

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

/** The server's event-loop delay since the previous scrape, in ms (GET /api/metrics, loopback). */
async function eventLoopDelay(server: FleetServer): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`${server.consoleUrl}/api/metrics`)).text();
  const value = (q: string) =>
    Number(new RegExp(`^fleet_event_loop_delay_seconds\\{quantile="${q}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? NaN) * 1000;
  return { p99: value("0.99"), max: value("1") };
}

/** The server's own memory split (fleet_process_memory_bytes), in MB: what of the RSS is V8 heap. */
async function memorySplit(server: FleetServer): Promise<string> {
  const text = await (await fetch(`${server.consoleUrl}/api/metrics`)).text();
  const mb = (kind: string) =>
    Number(new RegExp(`^fleet_process_memory_bytes\\{kind="${kind}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? NaN) / 2 ** 20;
  return `heap used ${mb("heap_used").toFixed(0)} of ${mb("heap_total").toFixed(0)} MB, external ${mb("external").toFixed(0)} MB`;
}

/**
 * Counters from /api/metrics that say where the server's time went: each background job's runs
 * and seconds (on SQLite a job's run time is event-loop time: better-sqlite3 is synchronous) and
 * the signing admission's outcomes (refused: limits full, lagging: event loop behind).
 */
async function serverCounters(server: FleetServer): Promise<Map<string, number>> {
  const text = await (await fetch(`${server.consoleUrl}/api/metrics`)).text();
  const counters = new Map<string, number>();
  for (const m of text.matchAll(/^fleet_job_duration_seconds_(sum|count)\{job="([^"]+)"\} (\S+)$/gm))
    counters.set(`job ${m[2]} ${m[1]}`, Number(m[3]));
  for (const m of text.matchAll(/^fleet_signing_admission_total\{outcome="([^"]+)"\} (\S+)$/gm))
    counters.set(`admission ${m[1]}`, Number(m[2]));
  return counters;
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
    `  signing admission: ${admission.map((k) => `${k.slice("admission ".length)} ${delta(k)}`).join(", ") || "none"}`,
  ];
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
  const server = await startFleetServer(
    {
      LOG_LEVEL: "warn",
      CHECK_API_RESPONSES: "off",
      CONSOLE_WARMUP: "on", // as shipped
      // One source address registers the whole fleet: the per-address limit is not what is measured.
      REGISTRATION_RATE_PER_MINUTE: "1000000",
      REGISTRATION_RATE_BURST: "100000",
    },
    { ports: PORT ? { console: PORT, agent: PORT + 1 } : undefined, nodeArgs: PROFILE_DIR ? profileArgs("server") : undefined },
  );
  const serverPid = server.pid();
  console.log(
    `server pid ${serverPid}: console ${server.consoleUrl}, agents ${server.agentUrl}, RSS at start ${rssMb(serverPid).toFixed(0)} MB`,
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
  sim.on("message", (m: SoakReport | { type: "progress"; message: string } | { type: "started" }) => {
    if (m.type === "progress") console.log(`[sim] ${m.message}`);
    if (m.type !== "report") return;
    registered = m.registered;
    errors = m.errors;
    for (const ms of m.latencies) latencies.push(ms);
  });
  const simExited = new Promise<void>((resolve) => sim.once("exit", () => resolve()));
  const config: SoakSimulatorConfig = {
    server: server.agentUrl,
    caPem: server.caPem,
    token: (token.body as { token: string }).token,
    clusters: CLUSTERS,
    intervalSeconds: INTERVAL,
    concurrency: Math.round(positive("concurrency", flags.concurrency)),
    keyPool: Math.round(positive("key-pool", flags["key-pool"])),
  };
  sim.send(config);

  const failures: string[] = [];
  try {
    // ---- ramp
    const rampCounters = await serverCounters(server);
    const rampStart = performance.now();
    const rampServerCpu = new CpuMeter(serverPid);
    const rampSimCpu = new CpuMeter(sim.pid);
    const rampLimitMs = GOALS.rampSeconds * 2 * 1000;
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
        ` CPU server ${rampServerCpu.lap().toFixed(0)}% simulator ${rampSimCpu.lap().toFixed(0)}%; errors ${fmtCounts(errors)}`,
    );
    const soakCounters = await serverCounters(server);
    for (const line of counterLines(rampCounters, soakCounters)) console.log(`ramp ${line.trim()}`);
    if (Number.isNaN(rampSeconds) || rampSeconds > GOALS.rampSeconds) failures.push("ramp");

    // ---- soak
    latencies = [];
    const errorsBefore = { ...errors };
    const soakStart = performance.now();
    const serverCpu = new CpuMeter(serverPid);
    const simCpu = new CpuMeter(sim.pid);
    const windowServerCpu = new CpuMeter(serverPid);
    const windowSimCpu = new CpuMeter(sim.pid);
    let maxPending = 0;
    let maxNotReady = 0;
    await eventLoopDelay(server); // starts the window
    const loop = { p99: 0, max: 0 };
    let maxRss = rssMb(serverPid);
    let lastLine = soakStart;
    while (performance.now() - soakStart < MINUTES * 60_000) {
      await new Promise((r) => setTimeout(r, 5000));
      const [pending, notReady] = [await countClusters(server, "Pending"), await countClusters(server, "NotReady")];
      maxPending = Math.max(maxPending, pending.n);
      maxNotReady = Math.max(maxNotReady, notReady.n);
      maxRss = Math.max(maxRss, rssMb(serverPid));
      const delay = await eventLoopDelay(server);
      loop.p99 = Math.max(loop.p99, delay.p99);
      loop.max = Math.max(loop.max, delay.max);
      if (performance.now() - lastLine >= 30_000) {
        lastLine = performance.now();
        const sorted = [...latencies].sort((a, b) => a - b);
        console.log(
          `[soak ${elapsed(soakStart)}] pending ${shown(pending)} notReady ${shown(notReady)} | ${(latencies.length / ((performance.now() - soakStart) / 1000)).toFixed(0)} hb/s p50 ${percentile(sorted, 50).toFixed(1)} ms p99 ${percentile(sorted, 99).toFixed(1)} ms | RSS ${rssMb(serverPid).toFixed(0)} MB (${await memorySplit(server)}) | CPU server ${windowServerCpu.lap().toFixed(0)}% sim ${windowSimCpu.lap().toFixed(0)}% | errors ${fmtCounts(diffCounts(errors, errorsBefore))}`,
        );
      }
    }
    const soakSeconds = (performance.now() - soakStart) / 1000;
    const sorted = latencies.sort((a, b) => a - b);
    const soakErrors = diffCounts(errors, errorsBefore);
    const errorCount = Object.values(soakErrors).reduce((a, b) => a + b, 0);
    const p99 = percentile(sorted, 99);
    const [serverPct, simPct] = [serverCpu.lap(), simCpu.lap()];
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
        `  errors            ${errorCount} ${errorCount ? fmtCounts(soakErrors) : ""} (goal 0)  ${goal(errorCount === 0, "errors")}`,
        `  heartbeat latency p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${p99.toFixed(1)} ms  max ${(sorted[sorted.length - 1] ?? NaN).toFixed(1)} ms  (goal p99 <= ${GOALS.p99Ms} ms)  ${goal(p99 <= GOALS.p99Ms, "p99")}`,
        `  server RSS (max)  ${maxRss.toFixed(0)} MB  (goal <= ${GOALS.rssMb} MB)  ${goal(maxRss <= GOALS.rssMb, "rss")}; at the end ${rssMb(serverPid).toFixed(0)} MB, ${await memorySplit(server)}`,
        `  server event loop delay: worst 5 s window p99 ${loop.p99.toFixed(0)} ms, max ${loop.max.toFixed(0)} ms (what the server itself held up)`,
        `  CPU (% of a core) server ${serverPct.toFixed(0)}%  simulator ${simPct.toFixed(0)}%${ENGINE === "postgres" ? "  (PostgreSQL's own processes not counted)" : ""}`,
        ...counterLines(soakCounters, await serverCounters(server)),
        failures.length ? `goals missed: ${failures.join(", ")}` : `every goal met`,
      ].join("\n"),
    );
  } finally {
    sim.kill("SIGTERM");
    await Promise.race([simExited, new Promise((r) => setTimeout(r, 15_000))]);
    if (sim.exitCode === null) sim.kill("SIGKILL");
    await server.stop();
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
