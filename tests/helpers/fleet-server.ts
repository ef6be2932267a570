// Starts the real product (server.ts, production build) on free loopback ports against a fresh
// database of TEST_ENGINE, for tests that speak HTTP and mutual TLS to it as agents and admins do.
// Needs `npm run build` first: tests using it live in tests/system, which npm test runs after the build.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { call, type AgentResponse, type ClientCert } from "./agent-client";
import { sessionCookie } from "./console-session";
import { createTestDatabase, type TestDatabase } from "./test-database";
// The flags the product runs with (runtime/start.mjs), so tests and benchmarks run what ships.
import { SERVER_NODE_FLAGS } from "../../runtime/server-node-flags.mjs";

export const ADMIN = { email: "admin@example.com", password: "correct-horse-battery" };
/** The key-encryption key test servers seal their CA with (pass FLEET_CA_KEK: "" for none). */
export const TEST_KEK = "q2mJ0m2v7o6m1sVfV0mQ7cS9N5o0Xy3kq1Zb8pWm4Ao=";

export type { AgentResponse, ClientCert } from "./agent-client";

export interface FleetServer {
  readonly consoleUrl: string;
  readonly agentUrl: string;
  readonly consolePort: number;
  readonly agentPort: number;
  readonly caPem: string;
  readonly db: TestDatabase;
  /** Everything the server printed so far (stdout and stderr). */
  logs(): string;
  /** Admin API call with the admin's session (same-origin) unless `cookie: null`. */
  api(
    method: string,
    path: string,
    body?: unknown,
    opts?: { cookie?: string | null; headers?: Record<string, string> },
  ): Promise<AgentResponse>;
  /** Agent API call over TLS to the agent port, trusting the fleet CA; `client` = mutual TLS. */
  agent(
    method: string,
    path: string,
    body?: unknown,
    opts?: { client?: ClientCert; headers?: Record<string, string>; rawBody?: string | Buffer },
  ): Promise<AgentResponse>;
  adminCookie(): Promise<string>;
  /**
   * Stops the process (SIGTERM) and starts it again on the same ports, database and data dir;
   * `env` is merged into its environment for this and later starts ("" unsets a variable).
   */
  restart(env?: Record<string, string>): Promise<void>;
  /**
   * Sends `signal` (default SIGKILL: a crash) and waits for the process to exit (SIGKILL after
   * 15 s if it has not); `ms` is how long it took. `restart()` starts it again afterwards.
   */
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  /** Stops the process, starts it with `env` merged in and waits for it to exit (start-up refusals). */
  exitOf(env: Record<string, string>): Promise<{ code: number | null; output: string }>;
  /** The data dir (SQLite files, generated secrets). */
  readonly dataDir: string;
  /** The server process's id (benchmarks read its CPU time and RSS from /proc). */
  pid(): number | undefined;
  stop(): Promise<void>;
}

// Listening ports are picked below Linux's ephemeral range (32768-60999): a port taken from that
// range with listen(0) and released can be handed to another test's outgoing connection (a
// PostgreSQL client, say) before the server binds it.
const PORT_RANGE = [20_000, 32_000] as const;

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = PORT_RANGE[0] + Math.floor(Math.random() * (PORT_RANGE[1] - PORT_RANGE[0]));
    if (await portIsFree(port)) return port;
  }
  throw new Error("no free loopback port found");
}

const nodeArgs = () => (process.env.FLEET_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);

// Servers this process started and has not seen exit. A test file that times out is ended by the
// test runner (SIGTERM), which runs no `after` hook: without this its servers outlived it (a CI
// run left one behind). They are killed when this process exits or is told to stop.
const liveServers = new Set<ChildProcess>();
let reaperInstalled = false;
function reapOnExit(child: ChildProcess) {
  liveServers.add(child);
  child.once("exit", () => liveServers.delete(child));
  if (reaperInstalled) return;
  reaperInstalled = true;
  const reap = () => liveServers.forEach((c) => c.kill("SIGKILL"));
  process.once("exit", reap);
  for (const signal of ["SIGTERM", "SIGINT"] as const)
    process.once(signal, () => {
      reap();
      process.exit(128 + (signal === "SIGTERM" ? 15 : 2));
    });
}

/**
 * `opts.database`: run against an existing test database (a second instance of the same fleet);
 * it is then left for its owner to drop.
 */
export async function startFleetServer(
  env: Record<string, string> = {},
  opts: { database?: TestDatabase; ports?: { console: number; agent: number }; nodeArgs?: string[] } = {},
): Promise<FleetServer> {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(distDir, "BUILD_ID")) || !existsSync(path.join(distDir, "fleet/server.mjs")))
    throw new Error("No production build: run `npm run build` first (npm test does).");
  const db = opts.database ?? (await createTestDatabase());
  const ownsDatabase = !opts.database;
  const dataDir = mkdtempSync(path.join(tmpdir(), "fleet-srv-"));
  const [consolePort, agentPort] = opts.ports ? [opts.ports.console, opts.ports.agent] : [await freePort(), await freePort()];
  let output = "";
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    // ~1.5 s of CPU per start, and tests start many servers (console-warmup.test.ts turns it on).
    CONSOLE_WARMUP: "off",
    // Under node:test (NODE_TEST_CONTEXT), the agent port in the main process: each worker is a
    // second or two more of CPU per start, and tests start many servers. The workers are tested in
    // agent-port-workers.test.ts and run in the e2e suites and the benches, which start the product
    // as it ships. AGENT_WORKERS in the caller's environment (or `env`) wins.
    ...(process.env.NODE_TEST_CONTEXT && process.env.AGENT_WORKERS === undefined ? { AGENT_WORKERS: "0" } : {}),
    HOST: "127.0.0.1",
    PORT: String(consolePort),
    AGENT_PORT: String(agentPort),
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    FLEET_CA_KEK: TEST_KEK,
    FLEET_CA_KEK_FILE: "",
    // A production build, but every admin answer is still checked against its contract.
    CHECK_API_RESPONSES: "on",
    ...env,
  };
  const launch = (extra: Record<string, string> = {}) => {
    const c: ChildProcess = spawn(
      process.execPath,
      // opts.nodeArgs, or FLEET_SERVER_NODE_ARGS: extra node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=prof" to profile a bench.
      [...SERVER_NODE_FLAGS, ...(opts.nodeArgs ?? nodeArgs()), path.join(distDir, "fleet/server.mjs")],
      {
        env: { ...childEnv, ...extra },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    reapOnExit(c);
    c.stdout!.on("data", (chunk) => (output += chunk));
    c.stderr!.on("data", (chunk) => (output += chunk));
    return { child: c, exited: new Promise<number | null>((resolve) => c.once("exit", (code) => resolve(code))) };
  };
  const running = () => child.exitCode === null && child.signalCode === null;
  let { child, exited } = launch();
  const consoleUrl = `http://127.0.0.1:${consolePort}`;
  const agentUrl = `https://127.0.0.1:${agentPort}`;
  // Ready when the agent port (which opens last) answers with the CA.
  const waitReady = async () => {
    let pem = "";
    // Generous: on a loaded shared 2-core machine a PostgreSQL start (migrations, CA) took over 30 s.
    const deadline = Date.now() + 90_000;
    while (!pem.includes("BEGIN CERTIFICATE")) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill("SIGKILL");
        if (ownsDatabase) await db.drop();
        throw new Error(`server did not start:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
      const res = await call(`${agentUrl}/api/agent/v1/ca`, "GET", { rejectUnauthorized: false }).catch(() => null);
      if (res?.status === 200) pem = String(res.body);
    }
    return pem;
  };
  const caPem = await waitReady();
  const stopProcess = async () => {
    if (running()) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };

  let cookie: string | null = null;
  const adminCookie = async () => (cookie ??= await sessionCookie(consoleUrl, ADMIN));

  return {
    consoleUrl,
    agentUrl,
    consolePort,
    agentPort,
    caPem,
    db,
    logs: () => output,
    adminCookie,
    async api(method, p, body, opts = {}) {
      const headers: Record<string, string> = { origin: consoleUrl, ...opts.headers };
      const c = opts.cookie === undefined ? await adminCookie() : opts.cookie;
      if (c) headers.cookie = c;
      return call(`${consoleUrl}${p}`, method, { headers, body });
    },
    async agent(method, p, body, opts = {}) {
      return call(`${agentUrl}${p}`, method, { ...opts, body, ca: caPem });
    },
    dataDir,
    pid: () => child.pid,
    async restart(extra = {}) {
      await stopProcess();
      Object.assign(childEnv, extra);
      ({ child, exited } = launch());
      await waitReady();
    },
    async kill(signal = "SIGKILL") {
      const started = performance.now();
      if (!running()) throw new Error("the server is not running");
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return { code, signal: child.signalCode, ms: performance.now() - started };
    },
    async exitOf(extra) {
      await stopProcess();
      const from = output.length;
      ({ child, exited } = launch(extra));
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return { code, output: output.slice(from) };
    },
    async stop() {
      await stopProcess();
      // Server-side errors explain most failing tests: show them with the test output.
      const errors = output.split("\n").filter((l) => / ERROR |unhandled error/.test(l));
      if (errors.length) process.stderr.write(`server errors (${errors.length}):\n${errors.slice(0, 20).join("\n")}\n`);
      if (ownsDatabase) await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
