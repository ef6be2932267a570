import "server-only";
import type http from "node:http";
import type https from "node:https";
import type { Env } from "@/lib/env";
import { startJobs } from "@/lib/server/jobs/job-runner";
import { caState, onCaStateChange } from "@/lib/server/pki/current-ca";
import { getSettings } from "@/lib/server/settings/settings";
import { agentKeepAliveMs, createAgentServer, type AgentServer } from "./agent-server";
import { currentTicketKey, TICKET_KEYS_WATCH_MS } from "./tls-ticket-keys";

// The agent port as one process serves it: the main process when AGENT_WORKERS=0, else each
// worker (agent-worker.ts), all of them following the same rows as several instances do.

/**
 * Connections the kernel may hold for accept(). Node's default (511) overflowed when 1,000 agents
 * reconnected at once: the handshakes that did not fit were reset half a minute later. The kernel
 * caps it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 4096;

export function listen(server: http.Server | https.Server, port: number, host: string) {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
}

/** Starts the agent port (listening) and the jobs that keep it in step; `stopJobs` before closing it. */
export async function serveAgentPort(
  config: Env,
  serveProtocol?: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ server: AgentServer; stopJobs(): Promise<void> }> {
  const server = createAgentServer(await caState(), {
    hostnames: config.AGENT_HOSTNAMES,
    proxyCidrs: config.TRUSTED_PROXY_CIDRS,
    clientCertProxies: config.clientCertProxies,
    ticketKey: (await currentTicketKey()).key,
    serveProtocol,
  });
  const applyKeepAlive = async () => {
    server.keepAliveTimeout = agentKeepAliveMs((await getSettings()).heartbeatIntervalSeconds);
  };
  await applyKeepAlive();
  await listen(server, config.AGENT_PORT, config.HOST);
  // A CA rollover started or retired on any instance reaches this port within seconds.
  // On this instance the switch happens as the new rows are read (onCaStateChange), before any
  // heartbeat answer carries the new bundle; the job makes sure the rows are read every 2 s.
  onCaStateChange((state) => server.applyCaState(state));
  // TLS session tickets: every instance uses the key in the database, so a session begun on one
  // resumes on any other (and on this one after a restart); the key rotates (tls-ticket-keys.ts).
  const jobs = startJobs([
    { name: "ca-watch", everyMs: 2_000, run: async () => server.applyCaState(await caState()) },
    {
      name: "tls-ticket-keys",
      everyMs: TICKET_KEYS_WATCH_MS,
      run: async () => server.applyTicketKey((await currentTicketKey()).key),
    },
    // An admin may change the heartbeat interval at any time, on any instance.
    { name: "agent-keep-alive", everyMs: 15_000, run: applyKeepAlive },
  ]);
  return { server, stopJobs: () => jobs.stop() };
}

/**
 * Closes servers gracefully: no new connections, each answer from now on closes its connection
 * (the agent reconnects elsewhere), idle connections closed as they fall idle, and what is still
 * busy after `drainMs` cut. A kept-alive agent connection would otherwise carry its next heartbeat
 * in forever (server.close() only ever closes idle connections once).
 */
export async function closeServers(servers: (http.Server | https.Server)[], drainMs: number): Promise<void> {
  for (const server of servers)
    server.prependListener("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.shouldKeepAlive = false;
    });
  const closed = Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  const sweep = setInterval(() => servers.forEach((s) => s.closeIdleConnections()), 100).unref();
  servers.forEach((s) => s.closeIdleConnections());
  const cut = setTimeout(() => servers.forEach((s) => s.closeAllConnections()), drainMs).unref();
  await closed;
  clearInterval(sweep);
  clearTimeout(cut);
}
