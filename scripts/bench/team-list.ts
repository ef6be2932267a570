// npm run bench:list — a team member's cluster list against a fleet viewer's of the same size
// (issue 36: listing a big fleet through a team whose scope matches ~400 clusters should cost no
// more than listing a fleet of ~400). Two servers: one holds the whole fleet and a team, the other
// a fleet of exactly the team's clusters (same names, labels and states), so both lists answer
// every query with the same rows. Their requests alternate, one at a time, so a machine that
// slows down meanwhile slows both alike. Prints numbers; asserts nothing. Loopback only.
//   BENCH_CLUSTERS (default 10000), BENCH_REQUESTS (default 100 per query and side), TEST_ENGINE
import { sessionCookie } from "../../tests/helpers/console-session";
import { startFleetServer, type FleetServer } from "../../tests/helpers/fleet-server";
import { seed } from "./overview";

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
// The seed gives every 8th cluster team=payments and every 3rd env=prod: 1 in 24.
const SCOPE = "team=payments,env=prod";
const inScope = (i: number) => i % 24 === 0;
const QUERIES = ["limit=50", "status=Ready&limit=50", "sort=lastHeartbeatAt&order=desc&limit=50", "q=eu-west&limit=50"];
const PASSWORD = "a-long-password-1";

type Side = { server: FleetServer; cookie: string };
type Figures = { p50: number; p95: number; total: string };

async function teamSide(): Promise<Side & { matched: number }> {
  const server = await startFleetServer({ LOG_LEVEL: "warn", FLEET_WORKERS: "off" });
  await seed(server, CLUSTERS);
  const team = await server.api("POST", "/api/v1/teams", { name: "payments-prod", selector: SCOPE });
  const member = { email: "member@bench.example", password: PASSWORD };
  await server.api("POST", "/api/v1/users", { ...member, role: "none" });
  await server.api("POST", `/api/v1/teams/${team.body.id}/members`, { user: member.email, role: "viewer" });
  return { server, cookie: await sessionCookie(server.consoleUrl, member), matched: team.body.clusters.count };
}

async function fleetSide(): Promise<Side> {
  const server = await startFleetServer({ LOG_LEVEL: "warn", FLEET_WORKERS: "off" });
  await seed(server, CLUSTERS, inScope);
  const viewer = { email: "viewer@bench.example", password: PASSWORD };
  await server.api("POST", "/api/v1/users", { ...viewer, role: "viewer" });
  return { server, cookie: await sessionCookie(server.consoleUrl, viewer) };
}

async function get(side: Side, query: string): Promise<{ ms: number; total: string }> {
  const start = performance.now();
  const res = await side.server.api("GET", `/api/v1/clusters?${query}`, undefined, { cookie: side.cookie });
  const ms = performance.now() - start;
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(res.body)}`);
  return { ms, total: `${res.body.total}${res.body.totalCapped ? "+" : ""}` };
}

function figures(times: number[], total: string): Figures {
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { p50: pct(0.5), p95: pct(0.95), total };
}

async function main() {
  const engine = process.env.TEST_ENGINE || "sqlite";
  const team = await teamSide();
  const fleet = await fleetSide().catch(async (err) => {
    await team.server.stop();
    throw err;
  });
  try {
    // Long enough that the seeded heartbeats stay fresh for the whole run: Ready stays Ready.
    for (const side of [team, fleet]) await side.server.api("PATCH", "/api/v1/settings", { notReadyThresholdSeconds: 3600 });
    console.log(
      `bench:list  on ${engine}: a team viewer (scope ${SCOPE}, ${team.matched} of ${CLUSTERS} clusters) against a fleet viewer of a fleet of those ${team.matched}, ${REQUESTS} requests per query each, alternating`,
    );
    console.log(
      `${"query".padEnd(44)} ${"team p50".padStart(9)} ${"p95".padStart(7)}   ${"fleet p50".padStart(9)} ${"p95".padStart(7)}  totals`,
    );
    for (const query of QUERIES) {
      const times = { team: [] as number[], fleet: [] as number[] };
      const totals = { team: "", fleet: "" };
      // The first few warm the servers' caches and the database's plans: not counted.
      for (let i = -10; i < REQUESTS; i++)
        for (const [name, side] of [
          ["team", team],
          ["fleet", fleet],
        ] as const) {
          const { ms, total } = await get(side, query);
          if (i >= 0) times[name].push(ms);
          totals[name] = total;
        }
      const t = figures(times.team, totals.team);
      const f = figures(times.fleet, totals.fleet);
      const ms = (n: number) => `${n.toFixed(1)}`.padStart(7);
      console.log(`${query.padEnd(44)} ${ms(t.p50)} ms ${ms(t.p95)}   ${ms(f.p50)} ms ${ms(f.p95)}  ${t.total}/${f.total}`);
    }
  } finally {
    await Promise.all([team.server.stop(), fleet.server.stop()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
