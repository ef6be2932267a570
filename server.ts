// The product's process: migrates, bootstraps, then serves the console (HTTP, PORT) and the
// agent protocol (HTTPS with client certificates, AGENT_PORT), the latter through worker
// processes (agent-worker.ts) unless AGENT_WORKERS=0.
import http from "node:http";
import next from "next";
import { env, EnvError } from "@/lib/env";
import { bootstrap } from "@/lib/server/bootstrap";
import { remoteAddress, stripIdentityHeaders } from "@/lib/server/agent-port/agent-server";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import { stripUntrustedForwarding, trustedProxies } from "@/lib/server/net/trusted-proxies";
import { isAgentOnlyPath, refuseOnConsolePort } from "@/lib/server/agent-port/agent-port";
import { admitBody, BoundedRequest, refuseBeforeContinue } from "@/lib/server/net/body-limit";
import { caState } from "@/lib/server/pki/current-ca";
import { closeServers, listen, serveAgentPort } from "@/lib/server/agent-port/serve-agent-port";
import { startAgentWorkers } from "@/lib/server/agent-port/workers/agent-workers";
import { flushHeartbeats } from "@/lib/server/heartbeats/heartbeat-writer";
import { startJobSchedule } from "@/lib/server/jobs/schedule";
import { log, setLogLevel } from "@/lib/server/log";
import { CaKeyError } from "@/lib/server/pki/ca-key-seal";
import { startSigningPool } from "@/lib/server/pki/signing-pool";
import { warmConsole, warmupBaseUrl } from "@/lib/server/console-warmup";
import { metricsStartWarning } from "@/lib/server/metrics/scrape-access";

declare const FLEET_COMPILED_SERVER: boolean | undefined;

/**
 * The files the worker threads and processes run. Compiled (scripts/build-server.mjs, what
 * production runs), they are this file's neighbours; run by tsx (`npm run dev`), the TypeScript.
 */
const ENTRIES =
  typeof FLEET_COMPILED_SERVER === "boolean"
    ? {
        signingWorker: new URL("./signing-worker.mjs", import.meta.url),
        agentWorker: new URL("./agent-worker.mjs", import.meta.url),
      }
    : {
        signingWorker: new URL("./runtime/signing-worker-entry.mjs", import.meta.url),
        agentWorker: new URL("./agent-worker.ts", import.meta.url),
      };

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
  const metricsWarning = metricsStartWarning();
  if (metricsWarning) log.warn(metricsWarning);
  const dev = config.NODE_ENV === "development";
  // next-auth reads this itself, for every URL it builds (redirects, callbacks). Left unset it
  // would take each request's Host header (and AUTH_TRUST_HOST would make it do so): always the
  // configured URL instead (lib/env.ts, authUrl).
  process.env.NEXTAUTH_URL = config.authUrl;
  const { shutdownHooks } = await bootstrap(config);
  // Registrations and rotations sign on worker threads, off the heartbeats' event loop.
  // Workers idle for a minute are retired: between registration waves their heaps are dead weight.
  startSigningPool(ENTRIES.signingWorker, undefined, 60_000);

  // The agent port's workers start beside Next's preparation (each takes a second or two).
  const workersStarting = config.agentWorkers > 0 ? startAgentWorkers(ENTRIES.agentWorker, config.agentWorkers) : null;
  workersStarting?.catch(() => {});

  const app = next({ dev, dir: process.cwd() });
  await app.prepare();
  const handle = app.getRequestHandler();

  // The console port never derives an agent identity: it only strips claims and notes the peer.
  // Forwarded headers (client address, Host, scheme) count only from TRUSTED_PROXY_CIDRS.
  const proxies = trustedProxies(config.TRUSTED_PROXY_CIDRS);
  // The agent endpoints that carry secrets are refused here whatever the spelling (421); their
  // routes also refuse any request the agent port did not mark.
  // Every body is bounded before Next sees it (lib/domain/body-limits.ts).
  const consoleServer = http.createServer({ IncomingMessage: BoundedRequest }, (req, res) => {
    if (!admitBody(req, res)) return;
    if (isAgentOnlyPath(req.url ?? "/")) return refuseOnConsolePort(res);
    stripIdentityHeaders(req);
    const peer = remoteAddress(req);
    req.headers[IDENTITY_HEADERS.remoteAddress] = peer;
    stripUntrustedForwarding(req, proxies, peer);
    void handle(req, res);
  });
  refuseBeforeContinue(consoleServer);
  consoleServer.keepAliveTimeout = 65_000;
  await listen(consoleServer, config.PORT, config.HOST);
  log.info("console listening", { url: `http://${displayHost(config.HOST)}:${config.PORT}`, database: config.database.dialect });
  // The first render of the console's routes runs their code for the first time (~1 s): done
  // here, on loopback, so the first person to open the console does not wait for it. Beside
  // readiness, not before it: this process also answers the agents, whose heartbeats after a
  // restart matter more than a warm console, and an operator opens the console seconds later.
  if (config.CONSOLE_WARMUP === "on") void warmConsole(warmupBaseUrl(config.HOST, config.PORT));

  // The agent port: served by worker processes sharing its socket (AGENT_WORKERS, default one per
  // core), or by this process when AGENT_WORKERS=0. Either way this process keeps the console and the jobs.
  const agentPort = workersStarting
    ? { workers: await workersStarting, own: null }
    : { workers: null, own: await serveAgentPort(config) };
  log.info("agent port listening", {
    url: `https://${displayHost(config.HOST)}:${config.AGENT_PORT}`,
    caFingerprint: (await caState()).serving.fingerprint,
    hostnames: config.AGENT_HOSTNAMES.join(","),
    workers: config.agentWorkers,
  });

  const stopJobs = config.FLEET_WORKERS === "on" ? startJobSchedule() : async () => flushHeartbeats(true);

  // Shutdown: stop accepting, let the requests in flight finish (the workers drain theirs and hand
  // over what they buffered), then flush and close the database, all within SHUTDOWN_GRACE_MS.
  // A console event stream never ends by itself: such streams are cut at once (their clients
  // reconnect by themselves).
  let stopping = false;
  const eventStreams = new Set<http.ServerResponse>();
  consoleServer.prependListener("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!req.url?.startsWith("/api/v1/events")) return;
    eventStreams.add(res);
    res.once("close", () => eventStreams.delete(res));
  });
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    // Whatever hangs (a database that stopped answering), the process is gone within the grace.
    let stage = "the agent port's jobs";
    setTimeout(() => {
      log.error("shutdown took too long; exiting", { graceMs: SHUTDOWN_GRACE_MS, waitingFor: stage });
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    await agentPort.own?.stopJobs();
    stage = "requests in flight";
    for (const res of eventStreams) res.socket?.destroy();
    // What is still busy after REQUEST_DRAIN_MS is cut, leaving time to flush heartbeats and close the database.
    await Promise.all([
      closeServers(agentPort.own ? [consoleServer, agentPort.own.server] : [consoleServer], REQUEST_DRAIN_MS),
      agentPort.workers?.stop(),
    ]);
    stage = "background jobs and the heartbeat flush";
    await stopJobs();
    stage = "the database";
    for (const hook of shutdownHooks) await hook().catch((err) => log.error("shutdown hook failed", { err: String(err) }));
    log.info("stopped", { signal });
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/** A SIGTERM ends the process within this (orchestrators commonly wait 30 s before SIGKILL). */
const SHUTDOWN_GRACE_MS = 9_000;
/** Requests in flight get this long to finish after SIGTERM. */
const REQUEST_DRAIN_MS = 5_000;

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
