// The simulator half of `npm run bench:soak`, in its own process so its CPU is measured apart
// from the server's. Started by scripts/bench/soak.ts with fork(); reports over IPC once a second:
// registered count, errors by code (cumulative) and the heartbeat latencies of that second.
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
}

export interface SoakReport {
  type: "report";
  registered: number;
  errors: Record<string, number>;
  latencies: number[];
}

function send(message: unknown) {
  process.send?.(message);
}

process.once("message", (config: SoakSimulatorConfig) => {
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
    seed: 1,
    timeoutMs: 15_000,
    onProgress: (message) => send({ type: "progress", message }),
  });
  const timer = setInterval(() => {
    const report: SoakReport = {
      type: "report",
      registered: sim.stats.registered,
      errors: Object.fromEntries(sim.stats.errors),
      latencies: sim.stats.takeWindow(Date.now()).map((ms) => Math.round(ms * 10) / 10),
    };
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
