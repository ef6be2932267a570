// Time as a dependency, so tests (and the simulator) can run the heartbeat loop without waiting.

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or early (never rejecting) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
    });
  },
};

/** A clock whose sleeps return at once and advance its time: for tests. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(private t = Date.now()) {}
  now() {
    return this.t;
  }
  advance(ms: number) {
    this.t += ms;
  }
  async sleep(ms: number) {
    this.sleeps.push(ms);
    this.t += Math.max(0, ms);
    // Yield to I/O so sockets and servers in the same process make progress.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** A small deterministic PRNG (mulberry32): simulated fleets are reproducible from a seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable 32-bit seed from a string (FNV-1a), e.g. to derive a cluster's facts from its name. */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
