// npm run bench:register — registrations per second and latency against the real server on
// SQLite (and PostgreSQL when reachable), then a registration wave at full speed while already
// registered clusters heartbeat: their p99 is what admission control protects. Prints numbers;
// asserts nothing. Loopback only.
//   --engine sqlite|postgres (default: both)
//   BENCH_REGISTRATIONS (default 400, per concurrency), BENCH_CONCURRENCY (default "1,2,4,8": one
//   run each; by Little's law concurrency = rate x latency, so ">= 100/s with p50 <= 20 ms" is a
//   claim about ~2 concurrent registrations; more in flight only queue and lengthen the latency)
//   BENCH_WAVE_CONCURRENCY (default 64; 0 skips the wave), BENCH_HEARTBEAT_CLUSTERS (default 200),
//   BENCH_HEARTBEAT_INTERVAL_MS (default 1000; each cluster heartbeats this often on its own keep-alive connection)
//   FLEET_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" profiles the server.
import { readdirSync, readFileSync } from "node:fs";
import https from "node:https";
import { availableParallelism, loadavg } from "node:os";
import { makeCsr } from "../../tests/helpers/csr";
import { heartbeatBody, registerCluster, registerWith, registrationBody } from "../../tests/helpers/agent-client";
import { startFleetServer, type FleetServer } from "../../tests/helpers/fleet-server";
import { postgresReachable } from "./load";

const TOTAL = Number(process.env.BENCH_REGISTRATIONS ?? 400);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? "1,2,4,8").split(",").map(Number);
const WAVE_CONCURRENCY = Number(process.env.BENCH_WAVE_CONCURRENCY ?? 64);
const HEARTBEAT_CLUSTERS = Number(process.env.BENCH_HEARTBEAT_CLUSTERS ?? 200);
const HEARTBEAT_INTERVAL_MS = Number(process.env.BENCH_HEARTBEAT_INTERVAL_MS ?? 1000);

type Engine = "sqlite" | "postgres";

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (v: number) => `${v.toFixed(1).padStart(6)} ms`;
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

/**
 * CPU seconds the server process has used so far, its main thread apart (the thread heartbeats
 * are answered on) from all its threads (signing workers included). Linux /proc; null elsewhere.
 * CPU time is steadier than latency on a shared machine: it says what a registration costs.
 */
function serverCpu(): { main: number; all: number } | null {
  try {
    const ticks = (stat: string) => {
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in USER_HZ (100)
    };
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid || !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("server.mjs")) continue;
      return { main: ticks(readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8")), all: ticks(stat) };
    }
  } catch {}
  return null;
}

function cpuPerRegistration(before: ReturnType<typeof serverCpu>, count: number): string {
  const after = serverCpu();
  if (!before || !after) return "";
  const ms = (v: number) => ((v * 1000) / count).toFixed(1);
  return `  server CPU per registration: main thread ${ms(after.main - before.main)} ms, all threads ${ms(after.all - before.all)} ms`;
}

/**
 * Registers `total` clusters with `concurrency` clients as fast as the server lets them; a 503
 * is retried after its Retry-After with full jitter, as agents do (counted, not an error).
 */
async function registrationWave(server: FleetServer, prefix: string, total: number, concurrency: number) {
  const token = await server.api("POST", "/api/v1/registration-tokens", { name: prefix, maxClusters: total });
  // Key generation is the agent's cost, not the server's: a few keys serve every request.
  const csrs = Array.from({ length: 8 }, () => makeCsr().csr);
  const latencies: number[] = [];
  let errors = 0;
  let overloaded = 0;
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const { body } = registrationBody(`${prefix}-${i}`, {
          caFingerprint: `sha256:${i.toString(16).padStart(64, "0")}`,
          labels: { env: "prod", region: "eu-west-1", team: `t${i % 7}` },
          csr: csrs[i % csrs.length],
        });
        for (;;) {
          const t0 = performance.now();
          const res = await registerWith(server, token.body.token, body);
          if (res.status === 503) {
            overloaded++;
            await sleep(Math.random() * 1000 * Number(res.headers["retry-after"] ?? 1));
            continue;
          }
          latencies.push(performance.now() - t0);
          if (res.status !== 201) errors++;
          break;
        }
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { rate: total / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), errors, overloaded };
}

/** Heartbeats every cluster every interval on its own keep-alive connection until `stop()`. */
function heartbeatLoad(server: FleetServer, clusters: { client: { cert: string; key: string } }[]) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let running = true;
  const body = JSON.stringify(heartbeatBody());
  const one = (agent: https.Agent) =>
    new Promise<number>((resolve) => {
      const u = new URL(server.agentUrl);
      const req = https.request(
        {
          method: "POST",
          hostname: u.hostname,
          port: u.port,
          path: "/api/agent/v1/heartbeat",
          agent,
          headers: { "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.setTimeout(15_000, () => req.destroy());
      req.on("error", () => resolve(0));
      req.end(body);
    });
  const loops = clusters.map(async (c, i) => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem, ...c.client });
    // Spread the clusters over the interval, as a fleet's agents are.
    await sleep((i / clusters.length) * HEARTBEAT_INTERVAL_MS);
    while (running) {
      const t0 = performance.now();
      const status = await one(agent);
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
      await sleep(Math.max(0, HEARTBEAT_INTERVAL_MS - (performance.now() - t0)));
    }
    agent.destroy();
  });
  return {
    reset: () => {
      latencies.length = 0;
      for (const k of Object.keys(statuses)) delete statuses[k];
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      const sorted = [...latencies].sort((a, b) => a - b);
      return {
        count: sorted.length,
        p50: pct(sorted, 50),
        p99: pct(sorted, 99),
        max: sorted[sorted.length - 1] ?? NaN,
        statuses,
      };
    },
  };
}

async function run(engine: Engine) {
  process.env.TEST_ENGINE = engine;
  const server = await startFleetServer({
    LOG_LEVEL: "warn",
    REGISTRATION_RATE_PER_MINUTE: "1000000",
    REGISTRATION_RATE_BURST: "100000",
  });
  try {
    for (const [run, concurrency] of CONCURRENCIES.entries()) {
      const cpu = serverCpu();
      const r = await registrationWave(server, `bench-reg-${run}`, TOTAL, concurrency);
      console.log(
        `register ${engine.padEnd(8)} ${r.rate.toFixed(0).padStart(5)} reg/s  p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  errors ${r.errors}  503s ${r.overloaded}  (${TOTAL} at ${concurrency} concurrent; goal >= 100/s, p50 <= 20 ms)`,
      );
      console.log(cpuPerRegistration(cpu, TOTAL));
    }
    if (WAVE_CONCURRENCY <= 0) return;

    // Phase 2: clusters already registered keep heartbeating while a wave registers at full speed.
    const token = await server.api("POST", "/api/v1/registration-tokens", { name: "steady", maxClusters: HEARTBEAT_CLUSTERS });
    // One at a time: admission always lets a lone registration in, even while the loop lags.
    const steady = [];
    for (let i = 0; i < HEARTBEAT_CLUSTERS; i++)
      steady.push(await registerCluster(server, `steady-${i}`, { token: { id: token.body.id, token: token.body.token } }));
    const hb = heartbeatLoad(server, steady);
    await sleep(3 * HEARTBEAT_INTERVAL_MS); // connections open and first heartbeats done
    hb.reset();
    const wave = await registrationWave(server, "bench-wave", TOTAL, WAVE_CONCURRENCY);
    const h = await hb.stop();
    console.log(
      `wave     ${engine.padEnd(8)} ${wave.rate.toFixed(0).padStart(5)} reg/s  p50 ${ms(wave.p50)}  p99 ${ms(wave.p99)}  errors ${wave.errors}  503s ${wave.overloaded}  (${TOTAL} at ${WAVE_CONCURRENCY} concurrent)`,
    );
    console.log(
      `  heartbeats during the wave: ${h.count} from ${HEARTBEAT_CLUSTERS} clusters every ${HEARTBEAT_INTERVAL_MS} ms  p50 ${ms(h.p50)}  p99 ${ms(h.p99)}  max ${ms(h.max)}  statuses ${JSON.stringify(h.statuses)}  (goal p99 <= 200 ms)`,
    );
  } finally {
    await server.stop();
  }
}

function engines(): Engine[] {
  const i = process.argv.indexOf("--engine");
  const chosen = i >= 0 ? process.argv[i + 1] : undefined;
  if (chosen === undefined) return ["sqlite", "postgres"];
  if (chosen !== "sqlite" && chosen !== "postgres") throw new Error("--engine takes sqlite or postgres");
  return [chosen];
}

async function main() {
  console.log(
    `bench:register  loopback, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} on ${availableParallelism()} cores\n`,
  );
  for (const engine of engines()) {
    if (engine === "postgres" && !(await postgresReachable())) console.log("postgres  not reachable: skipped");
    else await run(engine);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
