import "server-only";
import type { ClusterStatus } from "@/lib/domain/status";
import { randomId } from "@/lib/server/auth/secrets";
import { getSettings } from "@/lib/server/settings/settings";
import { heartbeatsReceived } from "@/lib/server/heartbeats/heartbeat-writer";
import { workersReceived } from "@/lib/server/agent-port/workers/worker-stats";
import { countByStatus } from "@/lib/server/clusters/cluster-list-sql";
import { startJobs, type Job, type JobRunner } from "@/lib/server/jobs/job-runner";
import { processSingleton } from "@/lib/server/process-singletons";
import { publish, subscribe, type FleetEvent } from "./bus";

/** Clusters by computed status, straight from the database (so every instance agrees). */
export async function statusCounts(now = new Date()): Promise<Record<ClusterStatus, number>> {
  const { notReadyThresholdSeconds } = await getSettings();
  return countByStatus(now, notReadyThresholdSeconds);
}

const INSTANCE_ID = randomId(8);
const RATE_TTL_MS = 10_000;

type Rates = Map<string, { perSecond: number; at: number }>;

/** Latest heartbeat rate of every live instance, learnt from the event bus. */
function rates(): Rates {
  return processSingleton("heartbeat-rates", () => {
    const byInstance: Rates = new Map();
    subscribe((e) => {
      if (e.type === "instance.heartbeats") byInstance.set(e.instanceId, { perSecond: e.perSecond, at: Date.now() });
    });
    return byInstance;
  });
}

export function fleetHeartbeatRate(): number {
  const now = Date.now();
  let sum = 0;
  for (const [id, r] of rates()) {
    if (now - r.at > RATE_TTL_MS) rates().delete(id);
    else sum += r.perSecond;
  }
  return Math.round(sum * 10) / 10;
}

/** A job that publishes this instance's heartbeat rate every `everyMs` (a worker). */
export function ratePublisherJob(everyMs = 2000): Job {
  rates();
  // This process's heartbeats and its agent-port workers'.
  const received = () => heartbeatsReceived() + workersReceived();
  let last = received();
  let lastAt = Date.now();
  return {
    name: "heartbeat-rate",
    everyMs,
    run: () => {
      const n = received();
      const now = Date.now();
      publish({
        type: "instance.heartbeats",
        instanceId: INSTANCE_ID,
        perSecond: ((n - last) * 1000) / (now - lastAt),
        at: new Date(now).toISOString(),
      });
      last = n;
      lastAt = now;
    },
  };
}

export async function fleetSummary(): Promise<Extract<FleetEvent, { type: "fleet.summary" }>> {
  return {
    type: "fleet.summary",
    at: new Date().toISOString(),
    heartbeatsPerSecond: fleetHeartbeatRate(),
    counts: await statusCounts(),
  };
}

// One summary per instance, shared by every open stream: the counts cost six queries, so they
// are computed once per SUMMARY_MS (and right after the sweeper records transitions), not once
// per stream. Runs only while someone is listening.
const SUMMARY_MS = 2000;
type Shared = {
  listeners: Set<(s: FleetSummary) => void>;
  runner: JobRunner | null;
  last: FleetSummary | null;
  computing: boolean;
};
export type FleetSummary = Extract<FleetEvent, { type: "fleet.summary" }>;
const shared = () =>
  processSingleton<Shared>("fleet-summary", () => ({ listeners: new Set(), runner: null, last: null, computing: false }));

/** Computes a summary now and hands it to every listener (no-op without listeners). */
export async function broadcastSummary(): Promise<void> {
  const s = shared();
  if (!s.listeners.size || s.computing) return;
  s.computing = true;
  try {
    s.last = await fleetSummary();
    for (const fn of s.listeners) fn(s.last);
  } catch {
    // The next tick tries again; a stream simply misses one summary.
  } finally {
    s.computing = false;
  }
}

export function onSummary(fn: (summary: FleetSummary) => void): () => void {
  const s = shared();
  s.listeners.add(fn);
  if (s.last) fn(s.last);
  s.runner ??= startJobs([{ name: "fleet-summary", everyMs: SUMMARY_MS, run: broadcastSummary }]);
  if (s.listeners.size === 1) void broadcastSummary();
  return () => {
    s.listeners.delete(fn);
    if (!s.listeners.size && s.runner) {
      void s.runner.stop();
      s.runner = null;
      s.last = null;
    }
  };
}
