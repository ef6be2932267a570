// The simulator half of `npm run bench:soak`, in its own process so its CPU is measured apart
// from the server's. Started by scripts/bench/soak.ts with fork(); reports over IPC once a second:
// registered count, errors by code (cumulative, in all and of heartbeats and registrations), the
// heartbeat latencies and its own event-loop delay of that second, and after a `mark` message (the
// server restarted) how many clusters have heartbeated since.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { FleetSimulator } from "../../lib/agent/simulator/fleet-simulator";
import { staticTokenSource } from "../../lib/agent/token";
import { parseFaults } from "../../lib/agent/simulator/simulate-args";

export interface SoakSimulatorConfig {
  server: string;
  caPem: string;
  token: string;
  clusters: number;
  intervalSeconds: number;
  concurrency: number;
  keyPool: number;
  closeConnections: boolean;
}

export interface SoakReport {
  type: "report";
  registered: number;
  errors: Record<string, number>;
  heartbeatErrors: Record<string, number>;
  registerErrors: Record<string, number>;
  latencies: number[];
  /** This process's event-loop delay over that second, in ms: part of every latency it measured. */
  loopDelay: { p99: number; max: number };
  /** Clusters with an answered heartbeat since the last mark (null before one). */
  heartbeatedSinceMark: number | null;
}

/** From soak.ts: count the clusters that heartbeat from now on. */
export interface SoakMark {
  type: "mark";
}

function send(message: unknown) {
  process.send?.(message);
}

let markAt: number | null = null;
process.once("message", (config: SoakSimulatorConfig) => {
  process.on("message", (m: SoakMark) => {
    if (m.type === "mark") markAt = Date.now();
  });
  const sim = new FleetSimulator({
    server: new URL(config.server),
    caPem: config.caPem,
    clusters: config.clusters,
    intervalSeconds: config.intervalSeconds,
    token: staticTokenSource(config.token, "bench:soak"),
    concurrency: config.concurrency,
    faults: parseFaults(undefined),
    prefix: "soak",
    keyPool: config.keyPool,
    closeConnections: config.closeConnections,
    seed: 1,
    timeoutMs: 15_000,
    onProgress: (message) => send({ type: "progress", message }),
  });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const timer = setInterval(() => {
    const report: SoakReport = {
      type: "report",
      registered: sim.stats.registered,
      errors: Object.fromEntries(sim.stats.errors),
      heartbeatErrors: Object.fromEntries(sim.stats.phaseErrors.get("heartbeat") ?? []),
      registerErrors: Object.fromEntries(sim.stats.phaseErrors.get("register") ?? []),
      latencies: sim.stats.takeWindow(Date.now()).map((ms) => Math.round(ms * 10) / 10),
      loopDelay: { p99: Math.round(delay.percentile(99) / 1e6), max: Math.round(delay.max / 1e6) },
      heartbeatedSinceMark: markAt === null ? null : sim.heartbeatedSince(markAt),
    };
    delay.reset();
    send(report);
  }, 1000);
  const stop = () => {
    clearInterval(timer);
    void sim.stop().then(() => process.exit(0));
  };
  process.on("disconnect", stop);
  process.once("SIGTERM", stop);
  sim.start().then(
    () => send({ type: "started" }),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
