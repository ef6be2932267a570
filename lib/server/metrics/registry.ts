import "server-only";

import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { processSingleton } from "@/lib/server/process-singletons";

// A small Prometheus registry for this instance's own counters and histograms, one per process
// (the agent port's direct paths and the Next bundle load this module separately).
type Labels = Record<string, string>;
type Counter = { help: string; values: Map<string, { labels: Labels; value: number }> };
type Series = { labels: Labels; counts: number[]; sum: number; count: number };
type Histogram = { help: string; buckets: number[]; series: Map<string, Series> };

type State = { counters: Map<string, Counter>; histograms: Map<string, Histogram> };
const state = () => processSingleton<State>("metrics", () => ({ counters: new Map(), histograms: new Map() }));

// Called on every heartbeat (its counter and histogram): no labels and one label, the usual
// cases, skip the sort and the JSON.
function labelKey(labels: Labels): string {
  const names = Object.keys(labels);
  if (names.length === 0) return "";
  if (names.length === 1) return `${names[0]}=${labels[names[0]!]}`;
  return JSON.stringify(Object.entries(labels).sort());
}

export function incCounter(name: string, help: string, labels: Labels = {}, by = 1) {
  const counters = state().counters;
  const c = counters.get(name) ?? { help, values: new Map() };
  counters.set(name, c);
  const key = labelKey(labels);
  const v = c.values.get(key) ?? { labels, value: 0 };
  v.value += by;
  c.values.set(key, v);
}

export function observe(name: string, help: string, buckets: number[], value: number, labels: Labels = {}) {
  const histograms = state().histograms;
  const h: Histogram = histograms.get(name) ?? { help, buckets, series: new Map() };
  histograms.set(name, h);
  const key = labelKey(labels);
  const s: Series = h.series.get(key) ?? { labels, counts: h.buckets.map(() => 0), sum: 0, count: 0 };
  h.series.set(key, s);
  h.buckets.forEach((b, i) => {
    if (value <= b) s.counts[i]!++;
  });
  s.sum += value;
  s.count++;
}

export function escapeLabel(v: string) {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

export function formatLabels(labels: Labels) {
  const entries = Object.entries(labels);
  return entries.length ? `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}` : "";
}

// How late the event loop ran timers: background work or a slow request holding the one
// JavaScript thread shows here before it shows as heartbeat latency. Sampled every 10 ms from the
// first scrape on; each scrape reports the delays since the previous one (as prom-client does).
const eventLoop = () =>
  processSingleton<IntervalHistogram>("event-loop-delay", () => {
    const h = monitorEventLoopDelay({ resolution: 10 }); // ms
    h.enable();
    return h;
  });

function renderEventLoopDelay(out: string[]) {
  const h = eventLoop();
  const name = "fleet_event_loop_delay_seconds";
  out.push(
    `# HELP ${name} Event loop delay since the previous scrape (10 ms sampling): p50, p99 and max.`,
    `# TYPE ${name} gauge`,
  );
  // The histogram counts the 10 ms sampling interval in: taken off. No sample yet: NaN, shown as 0.
  const seconds = (ns: number) => (Number.isFinite(ns) ? (Math.max(0, ns - 10e6) / 1e9).toFixed(4) : "0");
  for (const [quantile, ns] of [
    ["0.5", h.percentile(50)],
    ["0.99", h.percentile(99)],
    ["1", h.max],
  ] as const)
    out.push(`${name}{quantile="${quantile}"} ${seconds(ns)}`);
  h.reset();
}

/**
 * Where this process's memory is: the V8 heap (our objects), `external` (memory V8 objects hold
 * outside the heap), and the rest of `rss`, which is native (OpenSSL's per-connection state, the
 * allocator). A connected agent costs mostly native memory (README "Memory per connected cluster").
 */
function renderMemory(out: string[]) {
  const m = process.memoryUsage();
  const name = "fleet_process_memory_bytes";
  out.push(
    `# HELP ${name} This process's memory: resident set, V8 heap used and total, external, array buffers.`,
    `# TYPE ${name} gauge`,
  );
  for (const [kind, bytes] of [
    ["rss", m.rss],
    ["heap_used", m.heapUsed],
    ["heap_total", m.heapTotal],
    ["external", m.external],
    ["array_buffers", m.arrayBuffers],
  ] as const)
    out.push(`${name}{kind="${kind}"} ${bytes}`);
}

/** This instance's counters and histograms in the text exposition format. */
export function renderOwnMetrics(): string[] {
  const out: string[] = [];
  renderEventLoopDelay(out);
  renderMemory(out);
  for (const [name, c] of state().counters) {
    out.push(`# HELP ${name} ${c.help}`, `# TYPE ${name} counter`);
    for (const v of c.values.values()) out.push(`${name}${formatLabels(v.labels)} ${v.value}`);
  }
  for (const [name, h] of state().histograms) {
    out.push(`# HELP ${name} ${h.help}`, `# TYPE ${name} histogram`);
    for (const s of h.series.values()) {
      const bucket = (le: string) => formatLabels({ ...s.labels, le });
      h.buckets.forEach((b, i) => out.push(`${name}_bucket${bucket(String(b))} ${s.counts[i]}`));
      const own = formatLabels(s.labels);
      out.push(`${name}_bucket${bucket("+Inf")} ${s.count}`, `${name}_sum${own} ${s.sum}`, `${name}_count${own} ${s.count}`);
    }
  }
  return out;
}
