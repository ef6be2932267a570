// The product's process: migrates, bootstraps, then serves the console (HTTP, PORT) and the
// agent protocol (HTTPS with client certificates, AGENT_PORT) from one Next.js app.
import http from "node:http";
import type https from "node:https";
import next from "next";
import { env, EnvError } from "@/lib/env";
import { bootstrap } from "@/lib/server/bootstrap";
import { agentKeepAliveMs, createAgentServer, remoteAddress, stripIdentityHeaders } from "@/lib/server/agent-port/agent-server";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import { stripUntrustedForwarding, trustedProxies } from "@/lib/server/net/trusted-proxies";
import { isAgentOnlyPath, refuseOnConsolePort } from "@/lib/server/agent-port/agent-port";
import { admitBody, BoundedRequest, refuseBeforeContinue } from "@/lib/server/net/body-limit";
import { caState, onCaStateChange } from "@/lib/server/pki/current-ca";
import { currentTicketKey, TICKET_KEYS_WATCH_MS } from "@/lib/server/agent-port/tls-ticket-keys";
import { getSettings } from "@/lib/server/settings/settings";
import { flushHeartbeats } from "@/lib/server/heartbeats/heartbeat-writer";
import { startJobSchedule } from "@/lib/server/jobs/schedule";
import { startJobs } from "@/lib/server/jobs/job-runner";
import { log, setLogLevel } from "@/lib/server/log";
import { CaKeyError } from "@/lib/server/pki/ca-key-seal";
import { startSigningPool } from "@/lib/server/pki/signing-pool";
import { warmConsole, warmupBaseUrl } from "@/lib/server/console-warmup";
import { metricsStartWarning } from "@/lib/server/metrics/scrape-access";

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
  startSigningPool(new URL("./runtime/signing-worker-entry.mjs", import.meta.url), undefined, 60_000);

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

  const cas = await caState();
  const agentServer = createAgentServer(cas, {
    hostnames: config.AGENT_HOSTNAMES,
    proxyCidrs: config.TRUSTED_PROXY_CIDRS,
    clientCertProxies: config.clientCertProxies,
    ticketKey: (await currentTicketKey()).key,
  });
  const applyKeepAlive = async () => {
    agentServer.keepAliveTimeout = agentKeepAliveMs((await getSettings()).heartbeatIntervalSeconds);
  };
  await applyKeepAlive();
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
  // TLS session tickets: every instance uses the key in the database, so a session begun on one
  // resumes on any other (and on this one after a restart); the key rotates (tls-ticket-keys.ts).
  const agentPortJobs = startJobs([
    { name: "ca-watch", everyMs: 2_000, run: async () => agentServer.applyCaState(await caState()) },
    {
      name: "tls-ticket-keys",
      everyMs: TICKET_KEYS_WATCH_MS,
      run: async () => agentServer.applyTicketKey((await currentTicketKey()).key),
    },
    // An admin may change the heartbeat interval at any time, on any instance.
    { name: "agent-keep-alive", everyMs: 15_000, run: applyKeepAlive },
  ]);

  const stopJobs = config.FLEET_WORKERS === "on" ? startJobSchedule() : async () => flushHeartbeats(true);

  // Shutdown: stop accepting, let the requests in flight finish, then flush and close the database,
  // all within SHUTDOWN_GRACE_MS. A kept-alive agent connection would otherwise carry its next
  // heartbeat in forever (server.close() only ever closes idle connections once), and a console
  // event stream never ends by itself: a server holding 10,000 agents did not exit on SIGTERM.
  let stopping = false;
  const servers = [consoleServer, agentServer];
  // While stopping, every answer closes its connection, so the agent reconnects elsewhere.
  for (const server of servers)
    server.prependListener("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
      if (stopping) res.shouldKeepAlive = false;
    });
  // Console event streams (server-sent events) are cut at once: their clients reconnect by themselves.
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
    await agentPortJobs.stop();
    stage = "requests in flight";
    const closed = Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    for (const res of eventStreams) res.socket?.destroy();
    // Connections that fall idle between two requests are closed as they do; what is still busy
    // after REQUEST_DRAIN_MS is cut, leaving time to flush heartbeats and close the database.
    const sweep = setInterval(() => servers.forEach((s) => s.closeIdleConnections()), 100).unref();
    servers.forEach((s) => s.closeIdleConnections());
    const cut = setTimeout(() => servers.forEach((s) => s.closeAllConnections()), REQUEST_DRAIN_MS).unref();
    await closed;
    clearInterval(sweep);
    clearTimeout(cut);
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

/**
 * Connections the kernel may hold for accept(). Node's default (511) overflowed when 1,000 agents
 * reconnected at once: the handshakes that did not fit were reset half a minute later. The kernel
 * caps it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 4096;

function listen(server: http.Server | https.Server, port: number, host: string) {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve());
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
