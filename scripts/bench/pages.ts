// npm run bench:pages — time to content of the console's busiest pages (Overview, Clusters, a
// cluster, Tokens, then every other page) in real Chromium against the real server (production build), with a seeded
// fleet. Prints, per page, the document's time to first byte (server render) and the time until
// the page's data is on screen, plus any Content-Security-Policy violation seen. Asserts nothing.
//   BENCH_CLUSTERS (default 300), BENCH_LOADS (default 7), TEST_ENGINE=sqlite|postgres
//   BENCH_BASELINE_DIST=<dir>: also serve another build (a copy of an older .next) on a second
//   server with the same fleet, and alternate loads between the two (before/after comparisons).
import type { Browser, Page } from "@playwright/test";
import { startFleetServer, type FleetServer } from "../../tests/helpers/fleet-server";
import { adminBrowser, seed } from "./overview";

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 300);
const LOADS = Number(process.env.BENCH_LOADS ?? 7);

type Target = { name: string; path: string; content: string };

async function load(page: Page, url: string, content: string): Promise<{ ttfb: number; content: number }> {
  const started = Date.now();
  await page.goto(url, { waitUntil: "commit" });
  await page.locator(content).first().waitFor({ state: "visible", timeout: 30_000 });
  const total = Date.now() - started;
  const ttfb = await page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
    return nav ? nav.responseStart - nav.startTime : NaN;
  });
  return { ttfb, content: total };
}

function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

type Side = { label: string; server: FleetServer; browser: Browser; page: Page; targets: Target[]; violations: string[] };

/** A server on `distDir`'s build with the seeded fleet, and a signed-in page on it. */
async function side(label: string, distDir: string | undefined): Promise<Side> {
  const server = await startFleetServer({ LOG_LEVEL: "warn", ...(distDir ? { NEXT_DIST_DIR: distDir } : {}) });
  const settings = await server.api("PATCH", "/api/v1/settings", { notReadyThresholdSeconds: 1800 });
  if (settings.status !== 200) throw new Error(`settings: ${JSON.stringify(settings.body)}`);
  await seed(server, CLUSTERS);
  for (let i = 0; i < 20; i++) {
    const t = await server.api("POST", "/api/v1/registration-tokens", {
      name: `bench-token-${i}`,
      ttlSeconds: 7200,
      maxClusters: 1,
    });
    if (t.status !== 201) throw new Error(`token: ${JSON.stringify(t.body)}`);
  }
  // Let the enrollment evaluator's first pass over the seeded fleet finish: steady state only.
  for (const end = Date.now() + 120_000; Date.now() < end;) {
    const [row] = await server.db.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM "Cluster" WHERE "enrollment" IS NULL`);
    if (Number(row?.n) === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const [first] = await server.db.query<{ id: string; name: string }>(`SELECT id, name FROM "Cluster" ORDER BY name LIMIT 1`);
  const targets: Target[] = [
    { name: "Overview", path: "/", content: '[data-testid="count-Ready"] [data-testid="count-value"]' },
    { name: "Clusters", path: "/clusters", content: 'main a[href^="/clusters/cl_"]' },
    { name: "Cluster", path: `/clusters/${first!.id}`, content: `main h1:has-text("${first!.name}")` },
    { name: "Tokens", path: "/tokens", content: 'main :text("bench-token-0")' },
    // The other pages: rendered once the heading is there and no skeleton is left in <main>.
    ...[
      ["Groups", "/groups"],
      ["Policies", "/policies"],
      ["Rollouts", "/rollouts"],
      ["Versions", "/versions"],
      ["Node pools", "/node-pools"],
      ["Audit log", "/audit"],
      ["Settings", "/settings"],
    ].map(([name, path]) => ({ name: name!, path: path!, content: "main:not(:has([data-skeleton])) h1" })),
  ];
  const { browser, context } = await adminBrowser(server);
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (m) => {
    if (m.text().includes("Content Security Policy")) violations.push(m.text());
  });
  return { label, server, browser, page, targets, violations };
}

async function main() {
  const engine = process.env.TEST_ENGINE || "sqlite";
  const baseline = process.env.BENCH_BASELINE_DIST;
  console.log(`bench:pages  ${CLUSTERS.toLocaleString()} clusters, ${engine}, Chromium, loopback\n`);
  const sides: Side[] = [];
  try {
    sides.push(await side("this build", undefined));
    if (baseline) sides.push(await side(`baseline ${baseline}`, baseline));
    console.log("page       build                 ttfb median   content first   content median   content max");
    for (let t = 0; t < sides[0]!.targets.length; t++) {
      const runs = sides.map(() => [] as { ttfb: number; content: number }[]);
      // With a baseline, loads alternate between the builds (and which goes first), so a
      // machine busy with other work slows both alike.
      for (let i = 0; i < LOADS; i++) {
        const order = i % 2 ? [...sides.keys()].reverse() : [...sides.keys()];
        for (const k of order) {
          const s = sides[k]!;
          runs[k]!.push(await load(s.page, `${s.server.consoleUrl}${s.targets[t]!.path}`, s.targets[t]!.content));
        }
      }
      sides.forEach((s, k) => {
        const contents = runs[k]!.map((r) => r.content);
        const ttfb = median(runs[k]!.map((r) => r.ttfb));
        console.log(
          `${s.targets[t]!.name.padEnd(10)} ${s.label.padEnd(20)} ${ttfb.toFixed(0).padStart(8)} ms ${String(contents[0]).padStart(12)} ms ${median(contents).toFixed(0).padStart(13)} ms ${Math.max(
            ...contents,
          )
            .toFixed(0)
            .padStart(10)} ms`,
        );
      });
    }
    for (const s of sides)
      console.log(
        `\nCSP violations logged (${s.label}): ${s.violations.length}${s.violations.length ? `\n  ${s.violations.slice(0, 5).join("\n  ")}` : ""}`,
      );
  } finally {
    for (const s of sides) {
      await s.browser.close();
      await s.server.stop();
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
