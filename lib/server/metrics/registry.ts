import "server-only";

// A small Prometheus registry for this instance's own counters and histograms. On globalThis:
// the agent port's direct paths and the Next bundle load this module separately.
type Labels = Record<string, string>;
type Counter = { help: string; values: Map<string, { labels: Labels; value: number }> };
type Histogram = { help: string; buckets: number[]; counts: number[]; sum: number; count: number };

type State = { counters: Map<string, Counter>; histograms: Map<string, Histogram> };
const g = globalThis as unknown as { __fleetMetrics?: State };
const state = (): State => (g.__fleetMetrics ??= { counters: new Map(), histograms: new Map() });

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

export function observe(name: string, help: string, buckets: number[], value: number) {
  const histograms = state().histograms;
  const h: Histogram = histograms.get(name) ?? { help, buckets, counts: buckets.map(() => 0), sum: 0, count: 0 };
  histograms.set(name, h);
  h.buckets.forEach((b, i) => {
    if (value <= b) h.counts[i]!++;
  });
  h.sum += value;
  h.count++;
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
    h.buckets.forEach((b, i) => out.push(`${name}_bucket{le="${b}"} ${h.counts[i]}`));
    out.push(`${name}_bucket{le="+Inf"} ${h.count}`, `${name}_sum ${h.sum}`, `${name}_count ${h.count}`);
  }
  return out;
}
