import "server-only";

import { processSingleton } from "@/lib/server/process-singletons";

// A small Prometheus registry for this instance's own counters and histograms, one per process
// (the agent port's direct paths and the Next bundle load this module separately).
type Labels = Record<string, string>;
type Counter = { help: string; values: Map<string, { labels: Labels; value: number }> };
type Series = { labels: Labels; counts: number[]; sum: number; count: number };
type Histogram = { help: string; buckets: number[]; series: Map<string, Series> };

type State = { counters: Map<string, Counter>; histograms: Map<string, Histogram> };
const state = () => processSingleton<State>("metrics", () => ({ counters: new Map(), histograms: new Map() }));

const labelKey = (labels: Labels) => JSON.stringify(Object.entries(labels).sort());

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

/** This instance's counters and histograms in the text exposition format. */
export function renderOwnMetrics(): string[] {
  const out: string[] = [];
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
