import "server-only";

/**
 * Token buckets per key (a source address), in memory. Each instance limits on its own; that
 * bounds the work one address can cause (CSR checks, signing) without a shared store.
 */
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
  ) {}

  /** null when allowed, else the seconds to wait before the next attempt. */
  take(key: string, now = Date.now()): number | null {
    const rate = this.perMinute / 60_000;
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + (now - b.at) * rate);
    b.at = now;
    if (this.buckets.size > 10_000) this.prune(now);
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000));
  }

  private prune(now: number) {
    for (const [k, b] of this.buckets)
      if (b.tokens + (now - b.at) * (this.perMinute / 60_000) >= this.burst) this.buckets.delete(k);
  }
}
