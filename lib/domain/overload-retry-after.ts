// The Retry-After of a 503 `overloaded` (register, rotate) as a pure rule, so it is unit-tested
// apart from timers (lib/server/agent-port/admission.ts applies it). A fixed wait sends a fleet
// refused together back together; this one says how long the backlog takes to clear at the rate
// signing work is finishing, and spreads the answers over a window past that, so the refused come
// back about as fast as the server can take them.

export type RetryAfterPolicy = {
  /** The shortest wait any answer gives, in seconds (also the wait while no rate is known yet). */
  minSeconds: number;
  /** The longest, in seconds: a wave larger than this covers comes back early and is told again. */
  maxSeconds: number;
  /** The spread window as a share of the wait (never shorter than minSeconds). */
  spread: number;
  /**
   * The share of the backlog's time the wait says. Agents wait at least Retry-After and then up
   * to as long again (half as long again on average) and the window adds a quarter on average:
   * saying the whole time would bring them back at about half the rate work finishes and leave
   * the server idle; saying half brings them back at about that rate.
   */
  pace: number;
};

/** Ahead of a refused request: signing work running, queued, and refusals told to come back later. */
export type Backlog = { ahead: number; ratePerSecond: number | null };

/**
 * Whole seconds (HTTP delta-seconds) within [minSeconds, maxSeconds]: `pace` of the time `ahead`
 * requests take at `ratePerSecond`, plus `random()` of a window `spread` times as long. When the backlog's
 * wait with its window would pass maxSeconds, the wait shrinks so the window still fits below it:
 * the answers spread over the last part of the range instead of piling up on maxSeconds.
 */
export function overloadRetryAfter(backlog: Backlog, policy: RetryAfterPolicy, random: () => number): number {
  const min = Math.max(1, Math.floor(policy.minSeconds));
  const max = Math.max(min, Math.floor(policy.maxSeconds));
  const needed = backlog.ratePerSecond && backlog.ratePerSecond > 0 ? (policy.pace * backlog.ahead) / backlog.ratePerSecond : 0;
  const wait = Math.min(Math.max(min, needed), max / (1 + policy.spread));
  const window = Math.max(Math.min(min, max - wait), wait * policy.spread);
  return Math.min(max, Math.max(min, Math.ceil(wait + random() * window)));
}

/**
 * What overloadRetryAfter needs to know, kept in one-second buckets so memory stays flat under a
 * wave: signing work finished over the last `rateWindowMs` (the rate), and refused requests not
 * due back yet (each answer is counted ahead of the next until its Retry-After has passed).
 */
export class SigningBacklog {
  private finished = new Map<number, number>();
  private promised = new Map<number, number>();
  private readonly startedAt: number;

  constructor(
    now: number,
    private readonly rateWindowMs = 10_000,
  ) {
    this.startedAt = now;
  }

  /** A piece of signing work ended at `at` (success or failure: either freed a slot). */
  finish(at: number): void {
    const second = Math.floor(at / 1000);
    this.finished.set(second, (this.finished.get(second) ?? 0) + 1);
    this.prune(at);
  }

  /** A refusal at `at` was told to come back after `retryAfterSeconds`. */
  promise(at: number, retryAfterSeconds: number): void {
    const second = Math.floor(at / 1000) + retryAfterSeconds;
    this.promised.set(second, (this.promised.get(second) ?? 0) + 1);
    this.prune(at);
  }

  /** Signing work finished per second lately; null while nothing has (no rate to judge by). */
  rate(now: number): number | null {
    this.prune(now);
    let count = 0;
    for (const n of this.finished.values()) count += n;
    if (count === 0) return null;
    const seconds = Math.max(1, Math.min(this.rateWindowMs, now - this.startedAt) / 1000);
    return count / seconds;
  }

  /** Refusals at or before `now` whose Retry-After has not passed yet. */
  owed(now: number): number {
    this.prune(now);
    let count = 0;
    for (const n of this.promised.values()) count += n;
    return count;
  }

  /** The backlog a refusal at `now` waits behind, with `running` and `queued` requests in the gate. */
  backlog(now: number, running: number, queued: number): Backlog {
    return { ahead: running + queued + this.owed(now), ratePerSecond: this.rate(now) };
  }

  private prune(now: number): void {
    const second = Math.floor(now / 1000);
    const oldest = Math.floor((now - this.rateWindowMs) / 1000);
    for (const s of this.finished.keys()) if (s < oldest) this.finished.delete(s);
    for (const s of this.promised.keys()) if (s <= second) this.promised.delete(s);
  }
}
