// An agent-port worker (lib/server/agent-port/workers/agent-workers.ts): serves the agent port,
// whose listening socket the primary shares, with no console and no background jobs. Heartbeats
// are answered here and their facts written in batches (with SQLite handed to the primary, the
// file's one writer); registration and rotation are answered by the primary. Started by server.ts
// only; it stops when the primary says so, or goes when the primary is gone.
import { env } from "@/lib/env";
import { flushHeartbeats, heartbeatBuffer, heartbeatsReceived } from "@/lib/server/heartbeats/heartbeat-writer";
import { log, setLogLevel } from "@/lib/server/log";
import { metricsRegistry } from "@/lib/server/metrics/registry";
import { closeServers, serveAgentPort } from "@/lib/server/agent-port/serve-agent-port";
import { serveInWorker } from "@/lib/server/agent-port/workers/forward-to-primary";
import { listenToPrimary } from "@/lib/server/agent-port/workers/primary-calls";

const STATS_EVERY_MS = 1_000;
/** Requests in flight get this long after the primary's stop (within its own grace). */
const REQUEST_DRAIN_MS = 4_000;

async function main() {
  const config = env();
  setLogLevel(config.LOG_LEVEL);
  listenToPrimary();
  const { server, stopJobs } = await serveAgentPort(config, serveInWorker);

  const report = () => {
    const buffer = heartbeatBuffer();
    process.send?.({ kind: "fleet-stats", received: heartbeatsReceived(), failing: buffer.failing });
  };
  const stats = setInterval(report, STATS_EVERY_MS).unref();

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(stats);
    await stopJobs();
    await closeServers([server], REQUEST_DRAIN_MS);
    // Last: what this worker buffered goes out (to the database or the primary) before it exits.
    await flushHeartbeats(true).catch((err: unknown) => log.error("heartbeat flush at stop failed", { error: String(err) }));
    report();
    process.exit(0);
  };
  process.on("message", (m: { kind?: string; id?: number }) => {
    if (m?.kind === "fleet-stop") void stop();
    else if (m?.kind === "fleet-metrics-request")
      void metricsRegistry()
        .getMetricsAsJSON()
        .then((metrics) => process.send?.({ kind: "fleet-metrics", id: m.id, metrics }));
  });
  // The primary decides when to stop (a terminal's Ctrl-C reaches every process of the group).
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => {});
  // The primary is gone without stopping us: nothing can answer registrations any more.
  process.on("disconnect", () => process.exit(1));
}

main().catch((err) => {
  log.error("agent-port worker failed to start", { error: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
