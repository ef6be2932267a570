// npm run bench:overview — the Overview page with 10,000 clusters, in real Chromium against the
// real server (production build): how long until it is interactive, and how long a status change
// takes to show on screen. Prints numbers; asserts nothing. Loopback only.
//   BENCH_CLUSTERS (default 10000), BENCH_LOADS (default 5), BENCH_CHANGES (default 6)
//   TEST_ENGINE=sqlite|postgres (default sqlite; see tests/helpers/test-database.ts)
//
// Goals (docs/capacity.md): interactive <= 1.5 s, a status change visible <= 2 s.
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { startFleetServer, type FleetServer } from "../../tests/helpers/fleet-server";
import { insertRows, ts, type Value } from "../../tests/helpers/seed-rows";

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const LOADS = Number(process.env.BENCH_LOADS ?? 5);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 6);
// Long enough that no seeded heartbeat goes stale during the run: the only transitions are ours.
const THRESHOLD_SECONDS = 1800;
const CHROMIUM = "/usr/bin/chromium";

const REGIONS = ["eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-southeast-2", "ap-northeast-1"];
const ENVS = ["prod", "staging", "dev"];
const TEAMS = ["payments", "search", "checkout", "identity", "data", "platform", "edge", "ml"];

// ---------------------------------------------------------------------------------------------
// Seeding straight into the tables (tests/helpers/seed-rows.ts).

const insert = (server: FleetServer, table: string, columns: string[], rows: Value[][]) =>
  insertRows(server.db, table, columns, rows);

type Seeded = { ready: string[] };

/** `only`: seed just these of the CLUSTERS (by index), exactly as they are in the whole seed. */
export async function seed(
  server: FleetServer,
  CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000),
  only: (i: number) => boolean = () => true,
): Promise<Seeded> {
  const now = Date.now();
  const clusters: Value[][] = [];
  const labels: Value[][] = [];
  const ready: string[] = [];
  for (let i = 0; i < CLUSTERS; i++) {
    if (!only(i)) continue;
    const id = `cl_bench${String(i).padStart(10, "0")}`;
    const region = REGIONS[i % REGIONS.length]!;
    const env = ENVS[i % ENVS.length]!;
    const name = `bench-${region}-${env}-${String(i).padStart(5, "0")}`;
    // 95 % Ready, 3 % NotReady (stale), 1.5 % Pending, 0.5 % Draining.
    const kind = i % 200 < 190 ? "Ready" : i % 200 < 196 ? "NotReady" : i % 200 < 199 ? "Pending" : "Draining";
    const heartbeat = kind === "Pending" ? null : kind === "NotReady" ? now - 2 * 3600_000 : now - (i % 15) * 1000;
    const registered = now - 86_400_000 - i * 1000;
    clusters.push([
      id,
      name,
      `sha256:${i.toString(16).padStart(64, "0")}`,
      `https://api.${name}.example:6443`,
      ts(registered),
      kind === "Draining" ? "Draining" : kind === "Pending" ? "Registration" : "Active",
      ts(registered),
      kind === "Draining" ? "Ready" : kind,
      ts(kind === "NotReady" ? now - 3600_000 : registered),
      heartbeat === null ? null : ts(heartbeat),
      "1.4.0",
      `1.${28 + (i % 4)}.${i % 10}`,
      heartbeat === null ? null : "ok",
      heartbeat === null ? null : true,
      heartbeat === null ? null : true,
      heartbeat === null ? null : 40 + (i % 400),
      heartbeat === null ? null : 5 + (i % 30),
      ts(registered),
      ts(now),
    ]);
    labels.push([id, "env", env], [id, "team", TEAMS[i % TEAMS.length]!], [id, "tier", i % 3 ? "standard" : "critical"]);
    // One in 500 lacks the required "region" label, for the "needs attention" list.
    if (i % 500 !== 7) labels.push([id, "region", region]);
    if (kind === "Ready") ready.push(id);
  }
  await insert(
    server,
    "Cluster",
    [
      "id",
      "name",
      "caFingerprint",
      "apiServerUrl",
      "registeredAt",
      "phase",
      "phaseChangedAt",
      "status",
      "statusChangedAt",
      "lastHeartbeatAt",
      "agentVersion",
      "kubernetesVersion",
      "apiServerHealth",
      "logsReporting",
      "metricsReporting",
      "podCount",
      "namespaceCount",
      "createdAt",
      "updatedAt",
    ],
    clusters,
  );
  await insert(server, "ClusterLabel", ["clusterId", "key", "value"], labels);

  // The last 15 minutes of heartbeat buckets (what the fleet chart reads) and an hour of samples.
  const minute = Math.floor(now / 60_000) * 60_000;
  const buckets: Value[][] = [];
  for (const id of ready) for (let m = 1; m <= 15; m++) buckets.push([id, ts(minute - m * 60_000), 4]);
  await insert(server, "HeartbeatBucket", ["clusterId", "bucketStart", "count"], buckets);
  const samples: Value[][] = [];
  for (let m = 2; m <= 60; m++) {
    const notReady = Math.round(CLUSTERS * 0.03) + (m % 7);
    samples.push([ts(minute - m * 60_000), CLUSTERS - notReady - 200, notReady, 150, 50, CLUSTERS]);
  }
  await insert(server, "FleetSample", ["at", "ready", "notReady", "pending", "draining", "total"], samples);
  const attempts: Value[][] = [];
  for (let i = 0; i < 2000; i++) attempts.push([ts(now - i * 30_000), i % 400 === 3 ? "token_expired" : "ok"]);
  await insert(server, "RegistrationAttempt", ["at", "result"], attempts);
  // A bulk load is followed by autovacuum's ANALYZE within a minute or so; do it now so the
  // planner sees the fleet as it would in steady state (and the visibility map allows index-only scans).
  if (server.db.engine === "postgres") await server.db.exec(`VACUUM ANALYZE "Cluster", "ClusterLabel"`);
  return { ready };
}

/** Debian's Chromium with a context signed in as the server's admin (scripts/bench/pages.ts too). */
export async function adminBrowser(server: FleetServer): Promise<{ browser: Browser; context: BrowserContext }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const cookie = (await server.adminCookie()).split("=");
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addCookies([{ name: cookie[0]!, value: cookie.slice(1).join("="), url: server.consoleUrl }]);
  return { browser, context };
}

// ---------------------------------------------------------------------------------------------
// Measurements in the page.

/** Records, in the page, when the count cards first appear and when a count's text changes. */
const PAGE_PROBE = () => {
  const w = window as unknown as { __bench: { interactiveAt?: number; changes: { status: string; text: string; at: number }[] } };
  w.__bench = { changes: [] };
  const seen = new Map<string, string>();
  new MutationObserver(() => {
    const ready = document.querySelector<HTMLElement>('[data-testid="count-Ready"]');
    if (!ready) return;
    if (w.__bench.interactiveAt === undefined) {
      // Interactive: the counts are on screen and the card (a control) takes focus.
      ready.focus();
      if (document.activeElement === ready) w.__bench.interactiveAt = performance.now();
    }
    for (const status of ["Ready", "NotReady"]) {
      const text = document.querySelector(`[data-testid="count-${status}"] [data-testid="count-value"]`)?.textContent ?? "";
      if (seen.has(status) && seen.get(status) !== text) w.__bench.changes.push({ status, text, at: Date.now() });
      seen.set(status, text);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
};

async function loadOverview(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    () => (window as unknown as { __bench?: { interactiveAt?: number } }).__bench?.interactiveAt,
    undefined,
    { timeout: 30_000, polling: 50 },
  );
  return Number(await handle.jsonValue());
}

async function changeVisible(server: FleetServer, page: Page, id: string, goStale: boolean): Promise<number> {
  const status = goStale ? "NotReady" : "Ready";
  const before = await page.evaluate(() => (window as unknown as { __bench: { changes: unknown[] } }).__bench.changes.length);
  const heartbeat = goStale ? Date.now() - (THRESHOLD_SECONDS + 60) * 1000 : Date.now();
  const startedAt = Date.now();
  await server.db.query(
    server.db.engine === "postgres"
      ? `UPDATE "Cluster" SET "lastHeartbeatAt" = $1 WHERE id = $2`
      : `UPDATE "Cluster" SET "lastHeartbeatAt" = ? WHERE id = ?`,
    [server.db.engine === "postgres" ? new Date(heartbeat) : ts(heartbeat), id],
  );
  const handle = await page.waitForFunction(
    ([from, s]) =>
      (window as unknown as { __bench: { changes: { status: string; at: number }[] } }).__bench.changes
        .slice(from as number)
        .find((c) => c.status === s)?.at,
    [before, status] as const,
    { timeout: 30_000, polling: 20 },
  );
  return Number(await handle.jsonValue()) - startedAt;
}

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `median ${median.toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms  [${values.map((v) => v.toFixed(0)).join(", ")}]`;
}

async function main() {
  const engine = process.env.TEST_ENGINE || "sqlite";
  console.log(`bench:overview  ${CLUSTERS.toLocaleString()} clusters, ${engine}, Chromium ${CHROMIUM}, loopback\n`);
  const server = await startFleetServer({ LOG_LEVEL: "warn", CONSOLE_WARMUP: "on" });
  let browser: Browser | null = null;
  try {
    const settings = await server.api("PATCH", "/api/v1/settings", { notReadyThresholdSeconds: THRESHOLD_SECONDS });
    if (settings.status !== 200) throw new Error(`settings: ${JSON.stringify(settings.body)}`);
    const t0 = Date.now();
    const { ready } = await seed(server);
    console.log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // The enrollment evaluator's first pass over freshly seeded clusters writes every one of them
    // (a one-off a real fleet has long behind it): measured after it, in the steady state.
    const settleStarted = Date.now();
    for (;;) {
      const [row] = await server.db.query<{ n: number | string }>(
        `SELECT COUNT(*) AS n FROM "Cluster" WHERE "enrollment" IS NULL`,
      );
      if (Number(row?.n) === 0) break;
      if (Date.now() - settleStarted > 180_000)
        throw new Error("the enrollment evaluator did not finish its first pass in 3 min");
      await new Promise((r) => setTimeout(r, 1000));
    }
    console.log(`first enrollment pass done after ${((Date.now() - settleStarted) / 1000).toFixed(1)} s`);
    // What the page waits for, timed on its own so a slow page can be told from a slow API.
    const apiTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const overview = await server.api("GET", "/api/v1/overview");
      apiTimes.push(performance.now() - started);
      if (overview.status !== 200 || overview.body.counts.total !== CLUSTERS)
        throw new Error(`overview: ${JSON.stringify(overview.body)}`);
    }
    console.log(`GET /api/v1/overview  ${stats(apiTimes)}`);
    // Background work of the server (sweeper, enrollment evaluator, samples) shares its event loop
    // with page renders: the worst wait for a trivial endpoint over 10 s shows how much.
    const pings: number[] = [];
    for (const end = Date.now() + 10_000; Date.now() < end;) {
      const started = performance.now();
      await server.api("GET", "/api/healthz", undefined, { cookie: null });
      pings.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 50));
    }
    console.log(`GET /api/healthz      ${stats(pings).replace(/\s+\[.*$/, "")} over 10 s (server busy with background work)`);

    let context: BrowserContext;
    ({ browser, context } = await adminBrowser(server));
    await context.addInitScript(PAGE_PROBE);
    const page = await context.newPage();

    // Interactive: navigation start -> counts on screen and a control focusable. The first load
    // includes the server's first render of the route; the rest are warm.
    const loads: number[] = [];
    for (let i = 0; i < LOADS; i++) loads.push(await loadOverview(page, `${server.consoleUrl}/`));
    console.log(`interactive        first ${loads[0]!.toFixed(0)} ms; ${stats(loads)}  (goal <= 1500 ms)`);

    // Status change: a heartbeat made stale (Ready -> NotReady) or fresh again (NotReady -> Ready)
    // in the database -> the count on screen changes. Let the live stream open first.
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor({ timeout: 10_000 });
    const changes: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const id = ready[Math.floor(i / 2)]!;
      changes.push(await changeVisible(server, page, id, i % 2 === 0));
      await page.waitForTimeout(500 + Math.random() * 1500);
    }
    console.log(`change visible     ${stats(changes)}  (goal <= 2000 ms)`);
  } finally {
    await browser?.close();
    await server.stop();
  }
}

// Run only as a script (scripts/bench/clusters-list.ts imports the seeding).
if (process.argv[1]?.endsWith("overview.ts"))
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
