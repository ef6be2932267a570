import type { LogCode } from "../log";

// Counters for the simulator's live line and final summary. Latencies are kept per window
// (since the last line) for the live percentiles, and as a bounded uniform sample (reservoir)
// for the run's overall percentiles, so memory stays flat however long it runs.

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? null;
}

const RESERVOIR = 50_000;

export class SimStats {
  target = 0;
  registered = 0;
  heartbeats = 0;
  directives = 0;
  rotations = 0;
  readonly errors = new Map<string, number>();
  readonly phaseErrors = new Map<string, Map<string, number>>();
  readonly outcomes = new Map<string, number>();
  readonly faults = new Map<string, number>();
  private window: number[] = [];
  private windowHeartbeats = 0;
  private windowStart: number;
  private readonly sample: number[] = [];
  private seen = 0;

  constructor(
    private readonly startedAt: number,
    private readonly random: () => number = Math.random,
  ) {
    this.windowStart = startedAt;
  }

  heartbeat(latencyMs: number) {
    this.heartbeats += 1;
    this.windowHeartbeats += 1;
    this.window.push(latencyMs);
    this.seen += 1;
    if (this.sample.length < RESERVOIR) this.sample.push(latencyMs);
    else {
      const j = Math.floor(this.random() * this.seen);
      if (j < RESERVOIR) this.sample[j] = latencyMs;
    }
  }

  /** Errors by code, and by the phase they happened in (register, heartbeat, rotate ...). */
  error(code: LogCode | string, phase?: string) {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
    if (phase === undefined) return;
    const byCode = this.phaseErrors.get(phase) ?? new Map<string, number>();
    byCode.set(code, (byCode.get(code) ?? 0) + 1);
    this.phaseErrors.set(phase, byCode);
  }

  outcome(kind: string) {
    this.outcomes.set(kind, (this.outcomes.get(kind) ?? 0) + 1);
  }

  fault(kind: string) {
    this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
  }

  /** The latencies since the last line or take (ms), starting a new window: for embedders' own reports. */
  takeWindow(now: number): number[] {
    const latencies = this.window;
    this.window = [];
    this.windowHeartbeats = 0;
    this.windowStart = now;
    return latencies;
  }

  /** One status line; starts a new window. */
  line(now: number): string {
    const seconds = Math.max(0.001, (now - this.windowStart) / 1000);
    const sorted = [...this.window].sort((a, b) => a - b);
    const rate = this.windowHeartbeats / seconds;
    this.window = [];
    this.windowHeartbeats = 0;
    this.windowStart = now;
    return [
      `[sim ${clock(now - this.startedAt)}]`,
      `registered ${this.registered}/${this.target}`,
      `hb ${rate.toFixed(1)}/s`,
      `p50 ${ms(percentile(sorted, 50))} p99 ${ms(percentile(sorted, 99))}`,
      `directives ${this.directives}`,
      `errors ${formatCounts(this.errors) || "none"}`,
    ].join(" | ");
  }

  summary(now: number): string {
    const sorted = [...this.sample].sort((a, b) => a - b);
    const seconds = Math.max(0.001, (now - this.startedAt) / 1000);
    return [
      `simulation finished after ${seconds.toFixed(1)}s`,
      `  registered:   ${this.registered}/${this.target}`,
      `  heartbeats:   ${this.heartbeats} (${(this.heartbeats / seconds).toFixed(1)}/s)`,
      `  latency:      p50 ${ms(percentile(sorted, 50))}  p90 ${ms(percentile(sorted, 90))}  p99 ${ms(percentile(sorted, 99))}  max ${ms(sorted[sorted.length - 1] ?? null)}`,
      `  directives:   ${this.directives}`,
      `  rotations:    ${this.rotations}`,
      `  faults:       ${formatCounts(this.faults) || "none"}`,
      `  outcomes:     ${formatCounts(this.outcomes) || "none"}`,
      `  errors:       ${formatCounts(this.errors) || "none"}`,
    ].join("\n");
  }
}

export function formatCounts(counts: Map<string, number>): string {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
}

function ms(v: number | null): string {
  return v === null ? "-" : `${v < 10 ? v.toFixed(1) : Math.round(v)}ms`;
}

function clock(elapsedMs: number): string {
  const s = Math.floor(elapsedMs / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}
