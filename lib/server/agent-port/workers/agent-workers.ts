import "server-only";
import cluster, { type Worker } from "node:cluster";
import { fileURLToPath } from "node:url";
import { log } from "@/lib/server/log";
import { answerCall, applyShared } from "./primary-calls";
import { takeReport, workerGone } from "./worker-stats";
// Loaded for the operations they name (onPrimary, everywhere), which workers call by name.
import "./forward-to-primary";
import "@/lib/server/heartbeats/record-heartbeat";
import "@/lib/server/pki/certificate-cache";
import "../tls-ticket-keys";

// The primary's side of the agent-port workers: AGENT_WORKERS processes (agent-worker.ts) share
// the agent port's listening socket and accept from it themselves, while this process keeps the
// console and the jobs. A worker that dies is replaced; at shutdown each is told to stop, drains,
// hands over what it buffered, and exits before the database closes.

const RESTART_DELAY_MS = 1_000;

/** Forks `count` workers running `entry` and resolves once every one listens on the agent port. */
export async function startAgentWorkers(entry: URL, count: number): Promise<{ stop(): Promise<void> }> {
  let stopping = false;
  // The workers accept their own connections. node:cluster's default on Linux (round robin) has
  // this process accept each one and hand it over, one IPC round trip per connection: with agents
  // that connect for every heartbeat, connections piled up here (8,836 open at 14,000 clusters at
  // 60 s) whenever the console's jobs held this event loop, and the fleet timed out (capacity.md).
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ exec: fileURLToPath(entry), serialization: "advanced" });

  const fork = (): Promise<void> => {
    const worker = cluster.fork();
    worker.on("message", (m: unknown) => onMessage(worker, m));
    worker.on("exit", (code, signal) => {
      workerGone(worker);
      if (stopping) return;
      log.error("agent-port worker exited; starting another", { pid: worker.process.pid, code, signal });
      setTimeout(() => {
        if (!stopping) void fork().catch(() => {});
      }, RESTART_DELAY_MS).unref();
    });
    return new Promise((resolve, reject) => {
      worker.once("listening", () => resolve());
      worker.once("exit", (code) => reject(new Error(`an agent-port worker exited while starting (code ${code})`)));
    });
  };

  await Promise.all(Array.from({ length: count }, fork));
  return {
    async stop() {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
      await Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((resolve) => {
              if (w.isDead()) return resolve();
              w.once("exit", () => resolve());
              w.send({ kind: "fleet-stop" });
            }),
        ),
      );
    },
  };
}

function onMessage(worker: Worker, message: unknown) {
  if (applyShared(message, worker) || takeReport(worker, message)) return;
  void answerCall(message, (answer) => {
    if (worker.isConnected()) worker.send(answer);
  });
}
