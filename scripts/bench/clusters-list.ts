// npm run bench:clusters — the clusters list API with 50,000 clusters: latency of filtered pages
// (status, selector, group, free text, sorting). Prints numbers; asserts nothing. Loopback only.
//   BENCH_CLUSTERS (default 50000), BENCH_REQUESTS (default 60 per query), TEST_ENGINE
import { startFleetServer } from "../../tests/helpers/fleet-server";
import { seed } from "./overview";

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 50_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 60);

const QUERIES = [
  "status=Ready&limit=50",
  "status=NotReady&limit=50",
  "selector=env%3Dprod%2Cregion%20in%20(eu-west-1%2Cus-east-1)&limit=50",
  "selector=tier%3Dcritical%2C!legacy&status=Ready&sort=lastHeartbeatAt&order=desc&limit=50",
  "q=eu-central&limit=50",
  "group=prod-eu&limit=50",
  "limit=50&cursor=" + Buffer.from("25000").toString("base64url"),
];

async function main() {
  const engine = process.env.TEST_ENGINE || "sqlite";
  const server = await startFleetServer({ LOG_LEVEL: "warn", FLEET_WORKERS: "off" });
  try {
    const t0 = Date.now();
    await seed(server, CLUSTERS);
    console.log(
      `bench:clusters  ${CLUSTERS} clusters on ${engine}, seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${REQUESTS} requests per query`,
    );
    // Long enough that the seeded heartbeats stay fresh for the whole run: Ready stays Ready.
    await server.api("PATCH", "/api/v1/settings", { notReadyThresholdSeconds: 3600 });
    await server.api("POST", "/api/v1/groups", { name: "prod-eu", selector: "env=prod,region in (eu-west-1,eu-central-1)" });
    for (const q of QUERIES) {
      const times: number[] = [];
      let total = "";
      for (let i = 0; i < REQUESTS; i++) {
        const start = performance.now();
        const res = await server.api("GET", `/api/v1/clusters?${q}`);
        times.push(performance.now() - start);
        if (res.status !== 200) throw new Error(`${q}: ${res.status} ${JSON.stringify(res.body)}`);
        total = `${res.body.total}${res.body.totalCapped ? "+" : ""}`;
      }
      times.sort((a, b) => a - b);
      const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1);
      console.log(
        `${decodeURIComponent(q).padEnd(88)} p50 ${pct(0.5).padStart(6)} ms  p95 ${pct(0.95).padStart(6)} ms  (${total} match)`,
      );
    }
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
