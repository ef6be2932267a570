import "server-only";
import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, type Registry, type MetricObjectWithValues, type MetricValue } from "prom-client";
import { processSingleton } from "@/lib/server/process-singletons";

// What the agent-port workers (agent-workers.ts) tell the main process: heartbeats received,
// whether their flushes fail, and their metrics when a scrape asks. Kept apart from the workers'
// management so the summary, the sweeper and the scrape can read it without loading the protocol.

export type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];
export type WorkerReport =
  { kind: "fleet-stats"; received: number; failing: boolean } | { kind: "fleet-metrics"; id: number; metrics: WorkerMetrics };

const METRICS_TIMEOUT_MS = 2_000;

const state = () =>
  processSingleton("agent-worker-stats", () => ({
    stats: new Map<number, { received: number; failing: boolean }>(),
    /** Heartbeats counted by workers that have exited since (the received total never goes down). */
    receivedBefore: 0,
    metricsWaiting: new Map<number, (metrics: WorkerMetrics) => void>(),
    nextId: 1,
  }));

/** Takes a worker's report; false when the message is not one. */
export function takeReport(worker: Worker, message: unknown): boolean {
  const s = state();
  const m = message as WorkerReport;
  if (m?.kind === "fleet-stats") s.stats.set(worker.id, { received: m.received, failing: m.failing });
  else if (m?.kind === "fleet-metrics") {
    s.metricsWaiting.get(m.id)?.(m.metrics);
    s.metricsWaiting.delete(m.id);
  } else return false;
  return true;
}

/** A worker exited: what it received stays counted. */
export function workerGone(worker: Worker) {
  const s = state();
  s.receivedBefore += s.stats.get(worker.id)?.received ?? 0;
  s.stats.delete(worker.id);
}

/** Heartbeats the workers received (those alive and those gone), for the live summary. */
export function workersReceived(): number {
  const s = state();
  let total = s.receivedBefore;
  for (const w of s.stats.values()) total += w.received;
  return total;
}

/** Whether a worker's last flush failed (its facts wait in its memory, not the database). */
export function workersFailing(): boolean {
  return [...state().stats.values()].some((w) => w.failing);
}

/** Every worker's own metrics, asked for now (a worker that does not answer in time is left out). */
export async function workersMetrics(): Promise<WorkerMetrics[]> {
  const s = state();
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && w.isConnected());
  return (
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<WorkerMetrics | null>((resolve) => {
            const id = s.nextId++;
            const timer = setTimeout(() => {
              s.metricsWaiting.delete(id);
              resolve(null);
            }, METRICS_TIMEOUT_MS);
            s.metricsWaiting.set(id, (metrics) => {
              clearTimeout(timer);
              resolve(metrics);
            });
            w.send({ kind: "fleet-metrics-request", id });
          }),
      ),
    )
  ).filter((m): m is WorkerMetrics => m !== null);
}

/** The metrics of several processes as one registry: counters and histograms summed, gauges by their aggregator. */
export function aggregateMetrics(all: WorkerMetrics[]): Registry {
  return AggregatorRegistry.aggregate<typeof Registry.PROMETHEUS_CONTENT_TYPE>(all);
}
