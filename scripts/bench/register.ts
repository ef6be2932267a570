// npm run bench:register — registrations per second and latency against the real server on
// SQLite (and PostgreSQL when reachable). Prints numbers; asserts nothing. Loopback only.
//   BENCH_REGISTRATIONS (default 400), BENCH_CONCURRENCY (default 8)
import { makeCsr } from "../../tests/helpers/csr";
import { registerWith, registrationBody } from "../../tests/helpers/agent-client";
import { startFleetServer } from "../../tests/helpers/fleet-server";
import { postgresReachable } from "./load";

const TOTAL = Number(process.env.BENCH_REGISTRATIONS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

async function run(engine: "sqlite" | "postgres") {
  process.env.TEST_ENGINE = engine;
  const server = await startFleetServer({
    LOG_LEVEL: "warn",
    REGISTRATION_RATE_PER_MINUTE: "1000000",
    REGISTRATION_RATE_BURST: "100000",
  });
  try {
    const token = await server.api("POST", "/api/v1/registration-tokens", { name: "bench", maxClusters: TOTAL });
    // Key generation is the agent's cost, not the server's: a few keys serve every request.
    const csrs = Array.from({ length: 8 }, () => makeCsr().csr);
    const latencies: number[] = [];
    let errors = 0;
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TOTAL) {
          const i = next++;
          const t0 = performance.now();
          const { body } = registrationBody(`bench-reg-${i}`, {
            caFingerprint: `sha256:${i.toString(16).padStart(64, "0")}`,
            labels: { env: "prod", region: "eu-west-1", team: `t${i % 7}` },
            csr: csrs[i % csrs.length],
          });
          const res = await registerWith(server, token.body.token, body);
          latencies.push(performance.now() - t0);
          if (res.status !== 201) errors++;
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.floor((p / 100) * (latencies.length - 1))]!;
    console.log(
      `register ${engine.padEnd(8)} ${(TOTAL / seconds).toFixed(0).padStart(5)} reg/s  p50 ${pct(50).toFixed(1).padStart(6)} ms  p99 ${pct(99).toFixed(1).padStart(6)} ms  errors ${errors}  (goal >= 100/s, p50 <= 20 ms)`,
    );
  } finally {
    await server.stop();
  }
}

async function main() {
  console.log(`bench:register  ${TOTAL} registrations, ${CONCURRENCY} concurrent, loopback\n`);
  await run("sqlite");
  if (await postgresReachable()) await run("postgres");
  else console.log("postgres  not reachable: skipped");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
