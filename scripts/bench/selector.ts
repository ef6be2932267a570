// npm run bench:selector — the worst selector the parser accepts (20 terms: `in` with 50 values,
// `notin`, `!key`, `key`) on the gate and on the cluster list over 50,000 clusters, and the
// heartbeat latency of a few paced agents while those requests run, against the same agents alone
// (an unbounded selector once held the event loop, and every heartbeat with it, for many seconds).
// Prints numbers; asserts nothing. Loopback only.
//   --engine sqlite|postgres (or TEST_ENGINE; default sqlite)
//   BENCH_CLUSTERS (default 50000), BENCH_AGENTS (default 8), BENCH_PACE_MS (default 100: each
//   agent's pause between heartbeats), BENCH_SECONDS (default 15 per phase)
import { parseArgs } from "node:util";
import { parseSelector, SELECTOR_LIMITS } from "../../lib/domain/selector";
import { startFleetServer, type FleetServer } from "../../tests/helpers/fleet-server";
import { registerAgents } from "./heartbeat";
import { fmt, runLoad, type Target } from "./load";
import { seed } from "./overview";

const { values: args } = parseArgs({ options: { engine: { type: "string" } } });
if (args.engine) process.env.TEST_ENGINE = args.engine;

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 50_000);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 8);
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);

/** `n` short filler values that no seeded cluster has. */
const fillers = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/**
 * 20 terms within 1,024 characters, each kind at its worst: four 50-value sets (three `in`, one
 * `notin` that removes two thirds of the fleet), eight `key` terms on keys every cluster has (each
 * reads the whole key's index range), four `!key` and four `!=`. Over the seed of overview.ts it
 * matches env=prod in two EU regions for two teams: about 1 in 12 clusters, under the gate's 5,000.
 */
export const WORST_SELECTOR = [
  `env in (prod,${fillers("e", 49).join(",")})`,
  `region in (eu-west-1,eu-central-1,${fillers("r", 48).join(",")})`,
  `team in (payments,checkout,${fillers("t", 48).join(",")})`,
  `tier notin (standard,${fillers("n", 49).join(",")})`,
  "env",
  "region",
  "team",
  "tier",
  "env",
  "region",
  "team",
  "tier",
  "!legacy",
  "!deprecated",
  "!owner",
  "!sandbox",
  "env!=dev",
  "region!=us-east-1",
  "team!=ml",
  "tier!=none",
].join(",");

function stats(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return `n ${String(sorted.length).padStart(3)}  p50 ${at(0.5).toFixed(0).padStart(5)} ms  max ${sorted[sorted.length - 1]!.toFixed(0).padStart(5)} ms`;
}

async function timed(server: FleetServer, path: string): Promise<{ ms: number; summary: string }> {
  const started = performance.now();
  const res = await server.api("GET", path);
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${path.slice(0, 60)}…: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  const summary = res.body.clusters ? `${res.body.clusters.length} clusters evaluated` : `${res.body.total} match`;
  return { ms, summary };
}

async function main() {
  const engine = process.env.TEST_ENGINE || "sqlite";
  const selector = parseSelector(WORST_SELECTOR);
  const server = await startFleetServer({ LOG_LEVEL: "warn", FLEET_WORKERS: "off" });
  let targets: Target[] = [];
  try {
    const t0 = Date.now();
    await seed(server, CLUSTERS);
    // Long enough that the seeded heartbeats stay fresh for the whole run.
    await server.api("PATCH", "/api/v1/settings", { notReadyThresholdSeconds: 3600 });
    targets = await registerAgents(server, AGENTS);
    console.log(
      `bench:selector  ${CLUSTERS} clusters on ${engine}, seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s; ` +
        `${AGENTS} agents heartbeating every ${PACE_MS} ms, ${SECONDS} s per phase`,
    );
    console.log(
      `worst accepted selector: ${selector.length} terms (limit ${SELECTOR_LIMITS.terms}), ${WORST_SELECTOR.length} characters (limit ${SELECTOR_LIMITS.length})\n`,
    );
    const q = encodeURIComponent(WORST_SELECTOR);
    const paths = { gate: `/api/v1/gate?selector=${q}`, list: `/api/v1/clusters?selector=${q}&limit=50` };
    // First answers (cold caches, first compile of the route).
    for (const [name, path] of Object.entries(paths)) {
      const r = await timed(server, path);
      console.log(`first ${name.padEnd(5)} ${r.ms.toFixed(0).padStart(6)} ms  (${r.summary})`);
    }

    const alone = await runLoad(targets, SECONDS, 2, PACE_MS);
    console.log(`\nheartbeats alone          ${fmt(alone)}`);

    // Same agents, while one client sends the worst selector to the gate and the list in turn.
    const times: Record<string, number[]> = { gate: [], list: [] };
    let running = true;
    const hammer = (async () => {
      while (running)
        for (const [name, path] of Object.entries(paths)) {
          if (!running) break;
          times[name]!.push((await timed(server, path)).ms);
        }
    })();
    const during = await runLoad(targets, SECONDS, 2, PACE_MS);
    running = false;
    await hammer;
    console.log(`heartbeats meanwhile      ${fmt(during)}`);
    console.log(`p99 ratio meanwhile/alone ${(during.p99 / alone.p99).toFixed(2)}\n`);
    console.log(`gate, worst selector      ${stats(times.gate!)}  (goal < 1000 ms)`);
    console.log(`list, worst selector      ${stats(times.list!)}  (goal < 1000 ms)`);
  } finally {
    targets.forEach((t) => t.agent.destroy());
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
