// npm run bench:list — a team member's cluster list against a fleet viewer's of the same size
// (issue 36: listing a big fleet through a team whose scope matches ~400 clusters should cost no
// more than listing a fleet of ~400). Two servers, one after the other, never side by side.
// Prints numbers; asserts nothing. Loopback only.
//   BENCH_CLUSTERS (default 10000), BENCH_REQUESTS (default 60 per query), TEST_ENGINE
import { sessionCookie } from "../../tests/helpers/console-session";
import { startFleetServer, type FleetServer } from "../../tests/helpers/fleet-server";
import { seed } from "./overview";

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 60);
// The seed gives every 8th cluster team=payments and every 3rd env=prod: 1 in 24.
const SCOPE = "team=payments,env=prod";
const QUERIES = ["limit=50", "status=Ready&limit=50", "sort=lastHeartbeatAt&order=desc&limit=50", "q=eu-west&limit=50"];

type Row = { query: string; p50: number; p95: number; total: string };

async function measure(server: FleetServer, cookie: string): Promise<Row[]> {
  // Long enough that the seeded heartbeats stay fresh for the whole run: Ready stays Ready.
  await server.api("PATCH", "/api/v1/settings", { notReadyThresholdSeconds: 3600 });
  const rows: Row[] = [];
  for (const query of QUERIES) {
    const times: number[] = [];
    let total = "";
    for (let i = 0; i < REQUESTS; i++) {
      const start = performance.now();
      const res = await server.api("GET", `/api/v1/clusters?${query}`, undefined, { cookie });
      times.push(performance.now() - start);
      if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(res.body)}`);
      total = `${res.body.total}${res.body.totalCapped ? "+" : ""}`;
    }
    times.sort((a, b) => a - b);
    const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
    rows.push({ query, p50: pct(0.5), p95: pct(0.95), total });
  }
  return rows;
}

async function asTeamMember(): Promise<{ rows: Row[]; matched: number }> {
  const server = await startFleetServer({ LOG_LEVEL: "warn", FLEET_WORKERS: "off" });
  try {
    await seed(server, CLUSTERS);
    const team = await server.api("POST", "/api/v1/teams", { name: "payments-prod", selector: SCOPE });
    const member = { email: "member@bench.example", password: "a-long-password-1" };
    await server.api("POST", "/api/v1/users", { ...member, role: "none" });
    await server.api("POST", `/api/v1/teams/${team.body.id}/members`, { user: member.email, role: "viewer" });
    return { rows: await measure(server, await sessionCookie(server.consoleUrl, member)), matched: team.body.clusters.count };
  } finally {
    await server.stop();
  }
}

async function asFleetViewer(clusters: number): Promise<Row[]> {
  const server = await startFleetServer({ LOG_LEVEL: "warn", FLEET_WORKERS: "off" });
  try {
    await seed(server, clusters);
    const viewer = { email: "viewer@bench.example", password: "a-long-password-1" };
    await server.api("POST", "/api/v1/users", { ...viewer, role: "viewer" });
    return await measure(server, await sessionCookie(server.consoleUrl, viewer));
  } finally {
    await server.stop();
  }
}

async function main() {
  const engine = process.env.TEST_ENGINE || "sqlite";
  const team = await asTeamMember();
  const fleet = await asFleetViewer(team.matched);
  console.log(
    `bench:list  on ${engine}: a team viewer (scope ${SCOPE}, ${team.matched} of ${CLUSTERS} clusters) against a fleet viewer of a ${team.matched}-cluster fleet, ${REQUESTS} requests per query`,
  );
  console.log(
    `${"query".padEnd(44)} ${"team p50".padStart(9)} ${"p95".padStart(7)}   ${"fleet p50".padStart(9)} ${"p95".padStart(7)}  match`,
  );
  for (const [i, t] of team.rows.entries()) {
    const f = fleet[i]!;
    const ms = (n: number) => `${n.toFixed(1)}`.padStart(7);
    console.log(`${t.query.padEnd(44)} ${ms(t.p50)} ms ${ms(t.p95)}   ${ms(f.p50)} ms ${ms(f.p95)}  ${t.total}/${f.total}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
