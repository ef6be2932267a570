// End-to-end tests against the real built server (npm run serve) on loopback, with a fresh data
// dir per run. `npm run test:e2e` builds first when the build is missing or stale and runs the
// suite on SQLite and on PostgreSQL; `npx playwright test` alone uses the existing build and SQLite
// unless E2E_DATABASE_URL names a (fresh) PostgreSQL database.
import { existsSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ISSUER, OIDC_NAME } from "./e2e/support/oidc";
import { ACCOUNTS, AGENT_PORT, BASE_URL, DATA_DIR, FLEET_CA_KEK, PORT } from "./e2e/support/run";

const databaseUrl = process.env.E2E_DATABASE_URL || `file:${path.join(DATA_DIR, "fleet.db")}`;

if (!existsSync(path.join(process.env.NEXT_DIST_DIR || ".next", "BUILD_ID"))) {
  throw new Error("No build found: run `npm run test:e2e` (builds first) or `npm run build`.");
}

// Settings from the caller's shell must not leak into the server (the webServer inherits this
// process's environment). Removed rather than set empty: next-auth reads NEXTAUTH_URL itself and
// fails every page with "TypeError: Invalid URL" when it is an empty string.
for (const name of [
  "AUTH_SECRET",
  "NEXTAUTH_URL",
  "NEXTAUTH_SECRET",
  "OIDC_ISSUER",
  "OIDC_CLIENT_ID",
  "OIDC_CLIENT_SECRET",
  "OIDC_NAME",
  "OIDC_SCOPES",
  "FLEET_CA_KEK_FILE",
]) {
  delete process.env[name];
}

/** Lists, filters and bulk changes, aggregates, registration with one-use tokens, rollouts, the drain. */
const POSTGRES_SPECS = [
  "clusters-live.spec.ts",
  "clusters-bulk.spec.ts",
  "cluster-reasons.spec.ts",
  "cluster-enrollment.spec.ts",
  "groups-preview.spec.ts",
  "audit-and-time.spec.ts",
  "versions-capacity.spec.ts",
  "rollouts-staged.spec.ts",
  "tokens-mint.spec.ts",
  "refusal-summary.spec.ts",
  "wizard-agent.spec.ts",
];

const SYSTEM_CHROMIUM = "/usr/bin/chromium";

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  globalSetup: "./e2e/global-setup.ts",
  globalTeardown: "./e2e/global-teardown.ts",
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  // One retry on CI: a 2-core machine running the server, Chromium and two workers sometimes
  // pushes a screenshot-heavy test past its budget. A retried pass is still reported as "flaky".
  retries: process.env.CI ? 1 : 0,
  // Two cores: the server gets one, the browser and the tests the other.
  workers: 2,
  timeout: process.env.CI ? 45_000 : 30_000,
  // A hung run must not eat the CI budget; the SQLite run takes 20-25 minutes on a quiet CI machine.
  globalTimeout: process.env.CI ? 35 * 60_000 : undefined,
  // The PostgreSQL pass runs only the specs whose pages read or write through SQL that differs by
  // dialect; layout, forms, sign-in, headers and roles do not depend on the engine, and the
  // integration and system suites already run every service and endpoint on both.
  ...(process.env.E2E_DATABASE_URL ? { testMatch: POSTGRES_SPECS.map((spec) => `**/${spec}`) } : {}),
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL: BASE_URL,
    // Decoration only (the live indicator's ping, pulses): with motion the headless browser repaints
    // at 60 frames a second on every page with a live indicator, taking a core from the server.
    reducedMotion: "reduce",
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [
    // Endpoints called directly, the way a script or an attacker would: no browser.
    { name: "api", testDir: "e2e/api" },
    { name: "ui", testDir: "e2e/ui", use: { browserName: "chromium", viewport: { width: 1280, height: 800 } } },
  ],
  webServer: [
    {
      // The OpenID Provider single sign-on signs in through (e2e/ui/sso.spec.ts). The console reads
      // its discovery document only at the first SSO sign-in, so the two may start in any order.
      command: "node --import tsx e2e/support/oidc-provider.ts",
      url: `${OIDC_ISSUER}/.well-known/openid-configuration`,
      timeout: 60_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
    },
    {
      command: "npm run serve",
      url: `${BASE_URL}/api/readyz`,
      timeout: 120_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
      env: {
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        HOST: "127.0.0.1",
        PORT: String(PORT),
        AGENT_PORT: String(AGENT_PORT),
        DATA_DIR: DATA_DIR,
        DATABASE_URL: databaseUrl,
        ADMIN_EMAIL: ACCOUNTS.admin.email,
        ADMIN_PASSWORD: ACCOUNTS.admin.password,
        FLEET_CA_KEK,
        LOG_LEVEL: "warn",
        // A production build, but every admin answer is still checked against its contract.
        CHECK_API_RESPONSES: "on",
        OIDC_ISSUER,
        OIDC_CLIENT_ID,
        OIDC_CLIENT_SECRET,
        OIDC_NAME,
      },
    },
  ],
});
