// Admission of the agent port's signing work (register, rotate) as a pure decision, so the rule
// is unit-tested apart from timers and promises (lib/server/agent-port/admission.ts applies it).

export type AdmissionLimits = {
  maxInFlight: number;
  maxQueued: number;
  /** Recent event-loop delay above which new signing work is refused; 0 turns the check off. */
  maxEventLoopLagMs: number;
};

export type AdmissionLoad = { inFlight: number; queued: number; eventLoopLagMs: number };

/** admit: run now; queue: wait for a slot; busy / lagging: 503 overloaded with Retry-After. */
export type AdmissionDecision = "admit" | "queue" | "busy" | "lagging";

/**
 * While the event loop lags, heartbeats (which never pass the gate) are already late: signing work
 * is let in only up to `maxInFlight` scaled down by how far the lag is over the threshold (twice
 * the threshold: half as many), nothing queues, and the rest is refused, so a registration wave
 * yields to heartbeats in proportion. At least one request still runs, so a wave keeps moving
 * even when the lag comes from elsewhere (a console query, a busy machine).
 */
export function admissionDecision(load: AdmissionLoad, limits: AdmissionLimits): AdmissionDecision {
  const lagging = limits.maxEventLoopLagMs > 0 && load.eventLoopLagMs > limits.maxEventLoopLagMs;
  if (lagging) {
    const allowed = Math.max(1, Math.floor((limits.maxInFlight * limits.maxEventLoopLagMs) / load.eventLoopLagMs));
    return load.inFlight < allowed ? "admit" : "lagging";
  }
  if (load.inFlight < limits.maxInFlight) return "admit";
  return load.queued < limits.maxQueued ? "queue" : "busy";
}

/**
 * Timer-drift samples (how late a periodic timer fired) over a sliding window. `recent` is the
 * window's p99, or the stall under way when the loop has not ticked for longer than that (the
 * request being decided may be the first thing to run after a long block).
 */
export class LagWindow {
  private samples: { at: number; lagMs: number }[] = [];
  private lastTickAt: number | null = null;

  constructor(
    private readonly windowMs: number,
    private readonly tickMs: number,
  ) {}

  /** A tick of the probe's timer at `at` that fired `lagMs` late. */
  record(at: number, lagMs: number): void {
    this.lastTickAt = at;
    this.samples.push({ at, lagMs: Math.max(0, lagMs) });
    const from = at - this.windowMs;
    if (this.samples[0]!.at < from) this.samples = this.samples.filter((s) => s.at >= from);
  }

  /** The event-loop delay to judge by at `now`, in ms. */
  recent(now: number): number {
    const from = now - this.windowMs;
    const lags = this.samples.filter((s) => s.at >= from).map((s) => s.lagMs);
    lags.sort((a, b) => a - b);
    const p99 = lags.length ? lags[Math.min(lags.length - 1, Math.ceil(lags.length * 0.99) - 1)]! : 0;
    const stalled = this.lastTickAt === null ? 0 : now - this.lastTickAt - this.tickMs;
    return Math.max(p99, stalled);
  }
}
