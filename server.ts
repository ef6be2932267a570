// The product's process: migrates, bootstraps, then serves the console (HTTP, PORT) and the
// agent protocol (HTTPS with client certificates, AGENT_PORT) from one Next.js app.
import http from "node:http";
import type https from "node:https";
import next from "next";
import { env, EnvError } from "@/lib/env";
import { bootstrap } from "@/lib/server/bootstrap";
import { createAgentServer, remoteAddress, stripIdentityHeaders } from "@/lib/server/agents/agent-server";
import { IDENTITY_HEADERS } from "@/lib/server/agents/agent-identity";
import { stripUntrustedForwarding, trustedProxies } from "@/lib/server/net/trusted-proxies";
import { isAgentOnlyPath, refuseOnConsolePort } from "@/lib/server/agents/agent-port";
import { caState, onCaStateChange } from "@/lib/server/pki/current-ca";
import { flushHeartbeats } from "@/lib/server/heartbeats/heartbeat-writer";
import { startWorkers } from "@/lib/server/workers";
import { startJobs } from "@/lib/server/jobs/job-runner";
import { log, setLogLevel } from "@/lib/server/log";
import { CaKeyError } from "@/lib/server/pki/ca-key-seal";
import { startSigningPool } from "@/lib/server/pki/signing-pool";

async function main() {
  let config;
  try {
    config = env();
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  setLogLevel(config.LOG_LEVEL);
  const dev = config.NODE_ENV === "development";
  // next-auth reads this itself: without a fixed NEXTAUTH_URL, derive the origin from the
  // request's Host, so the console works on whatever address the operator uses.
  if (!config.NEXTAUTH_URL) {
    delete process.env.NEXTAUTH_URL; // an empty value would break next-auth, which reads it itself
    process.env.AUTH_TRUST_HOST = "true";
  }
  const { shutdownHooks } = await bootstrap(config);
  // Registrations and rotations sign on worker threads, off the heartbeats' event loop.
  startSigningPool(new URL("./lib/server/pki/signing-worker-entry.mjs", import.meta.url));

  const app = next({ dev, dir: process.cwd() });
  await app.prepare();
  const handle = app.getRequestHandler();

  // The console port never derives an agent identity: it only strips claims and notes the peer.
  // Forwarded headers (client address, Host, scheme) count only from TRUSTED_PROXY_CIDRS.
  const proxies = trustedProxies(config.TRUSTED_PROXY_CIDRS);
  // The agent endpoints that carry secrets are refused here whatever the spelling (421); their
  // routes also refuse any request the agent port did not mark.
  const consoleServer = http.createServer((req, res) => {
    if (isAgentOnlyPath(req.url ?? "/")) return refuseOnConsolePort(res);
    stripIdentityHeaders(req);
    const peer = remoteAddress(req);
    req.headers[IDENTITY_HEADERS.remoteAddress] = peer;
    stripUntrustedForwarding(req, proxies, peer);
    void handle(req, res);
  });
  consoleServer.keepAliveTimeout = 65_000;
  await listen(consoleServer, config.PORT, config.HOST);
  log.info("console listening", { url: `http://${displayHost(config.HOST)}:${config.PORT}`, database: config.database.dialect });

  const cas = await caState();
  const agentServer = createAgentServer(
    cas,
    config.AGENT_HOSTNAMES,
    config.TRUSTED_PROXY_CIDRS,
    (req, res) => void handle(req, res),
  );
  agentServer.keepAliveTimeout = 65_000;
  await listen(agentServer, config.AGENT_PORT, config.HOST);
  log.info("agent port listening", {
    url: `https://${displayHost(config.HOST)}:${config.AGENT_PORT}`,
    caFingerprint: cas.serving.fingerprint,
    hostnames: config.AGENT_HOSTNAMES.join(","),
  });
  // A CA rollover started or retired on any instance reaches this port within seconds.
  // On this instance the switch happens as the new rows are read (onCaStateChange), before any
  // heartbeat answer carries the new bundle; the job makes sure the rows are read every 2 s.
  onCaStateChange((state) => agentServer.applyCaState(state));
  const caWatch = startJobs([{ name: "ca-watch", everyMs: 2_000, run: async () => agentServer.applyCaState(await caState()) }]);

  const stopWorkers = config.FLEET_WORKERS === "on" ? startWorkers() : async () => flushHeartbeats(true);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    await caWatch.stop();
    // Stop accepting, let in-flight requests finish, then close the database.
    const servers = [consoleServer, agentServer];
    const closed = Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    servers.forEach((s) => s.closeIdleConnections());
    const timer = setTimeout(() => servers.forEach((s) => s.closeAllConnections()), 10_000).unref();
    await closed;
    clearTimeout(timer);
    await stopWorkers();
    for (const hook of shutdownHooks) await hook().catch((err) => log.error("shutdown hook failed", { err: String(err) }));
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

function listen(server: http.Server | https.Server, port: number, host: string) {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
}

function displayHost(host: string) {
  return host === "0.0.0.0" || host === "::" ? "localhost" : host;
}

main().catch((err) => {
  // The operator's fix is one setting: say it in one sentence, without a stack trace.
  if (err instanceof CaKeyError) {
    console.error(err.message);
    process.exit(1);
  }
  log.error("failed to start", { error: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
