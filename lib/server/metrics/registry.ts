import "server-only";

import { monitorEventLoopDelay } from "node:perf_hooks";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { processSingleton } from "@/lib/server/process-singletons";

// This instance's own metrics, in one prom-client Registry per process. Why not prom-client's
// global `register`: the agent port's direct paths (server.ts) and the Next bundle load this
// module, and maybe prom-client itself, separately; a module-level registry would exist twice and
// the scrape served by Next would miss what the agent port recorded. The metric objects live in
// the same singleton, so whichever copy records, the one registry sees it.
type Labels = Record<string, string>;
type State = {
  registry: Registry;
  counters: Map<string, Counter>;
  histograms: Map<string, Histogram>;
  gauges: Map<string, Gauge>;
};

const state = () =>
  processSingleton<State>("metrics", () => {
    const registry = new Registry();
    // Process and Node.js metrics (CPU, memory, file descriptors, GC, event-loop lag), once per process.
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
    const s: State = { registry, counters: new Map(), histograms: new Map(), gauges: new Map() };
    registerEventLoopDelay(s);
    registerMemory(s);
    return s;
  });

/** The process's one registry (the scrape merges the fleet's gauges into it). */
export function metricsRegistry(): Registry {
  return state().registry;
}

// Metrics are made on first use with the label names of that use: every call site of a name
// passes the same labels (prom-client refuses others, loudly, which a test would catch).
function ownMetric<M>(of: Map<string, M>, name: string, make: (registers: Registry[]) => M): M {
  let m = of.get(name);
  if (!m) of.set(name, (m = make([state().registry])));
  return m;
}

export function incCounter(name: string, help: string, labels: Labels = {}, by = 1) {
  ownMetric(state().counters, name, (registers) => new Counter({ name, help, labelNames: Object.keys(labels), registers })).inc(
    labels,
    by,
  );
}

export function observe(name: string, help: string, buckets: number[], value: number, labels: Labels = {}) {
  ownMetric(
    state().histograms,
    name,
    (registers) => new Histogram({ name, help, buckets, labelNames: Object.keys(labels), registers }),
  ).observe(labels, value);
}

/** Adds `by` (negative to subtract) to a gauge this instance keeps, e.g. open connections. */
export function addToGauge(name: string, help: string, by: number, labels: Labels = {}) {
  ownMetric(state().gauges, name, (registers) => new Gauge({ name, help, labelNames: Object.keys(labels), registers })).inc(
    labels,
    by,
  );
}

// How late the event loop ran timers: background work or a slow request holding the one
// JavaScript thread shows here before it shows as heartbeat latency. Sampled every 10 ms; each
// scrape reports the delays since the previous one (as prom-client's nodejs_eventloop_lag_p*
// do). Kept beside those under its own name: benches and the soak read this one.
function registerEventLoopDelay(s: State) {
  const h = monitorEventLoopDelay({ resolution: 10 }); // ns
  h.enable();
  // The histogram counts the 10 ms sampling interval in: taken off. No sample yet: NaN, shown as 0.
  const seconds = (ns: number) => (Number.isFinite(ns) ? Math.round(Math.max(0, ns - 10e6) / 1e5) / 1e4 : 0);
  new Gauge({
    name: "fleet_event_loop_delay_seconds",
    help: "Event loop delay since the previous scrape (10 ms sampling): p50, p99 and max.",
    labelNames: ["quantile"],
    registers: [s.registry],
    // Several processes (agent-port workers): the slowest loop is the one to see.
    aggregator: "max",
    collect() {
      this.set({ quantile: "0.5" }, seconds(h.percentile(50)));
      this.set({ quantile: "0.99" }, seconds(h.percentile(99)));
      this.set({ quantile: "1" }, seconds(h.max));
      h.reset();
    },
  });
}

/**
 * Where this process's memory is: the V8 heap (our objects), `external` (memory V8 objects hold
 * outside the heap), and the rest of `rss`, which is native (OpenSSL's per-connection state, the
 * allocator). A connected agent costs mostly native memory (docs/capacity.md).
 */
function registerMemory(s: State) {
  new Gauge({
    name: "fleet_process_memory_bytes",
    help: "This process's memory: resident set, V8 heap used and total, external, array buffers.",
    labelNames: ["kind"],
    registers: [s.registry],
    collect() {
      const m = process.memoryUsage();
      this.set({ kind: "rss" }, m.rss);
      this.set({ kind: "heap_used" }, m.heapUsed);
      this.set({ kind: "heap_total" }, m.heapTotal);
      this.set({ kind: "external" }, m.external);
      this.set({ kind: "array_buffers" }, m.arrayBuffers);
    },
  });
}

/** This instance's own metrics in the text exposition format, one line each (tests read them). */
export async function renderOwnMetrics(): Promise<string[]> {
  return (await metricsRegistry().metrics()).split("\n");
}
