import "server-only";

/**
 * A value loaded from the database at most once per `maxAgeMs`, shared by every caller: the
 * first caller after it goes stale refreshes it, concurrent callers wait for that one load.
 * `invalidate()` makes the next caller reload (changes made on this instance show at once;
 * changes made on another instance within maxAgeMs).
 *
 * A reload that fails keeps serving the last value (and tries again after maxAgeMs): while the
 * database is away, heartbeats of known agents are answered from what was loaded before
 * (README, "When things fail"). Once a reload has failed, callers no longer wait for the next
 * one (a database that neither answers nor refuses would hold every heartbeat for the pool's
 * connect timeout). Only a snapshot that never loaded throws.
 */
export class Snapshot<T> {
  private value: T | undefined;
  private at = 0;
  private loading: Promise<T> | null = null;
  private failing = false;

  constructor(
    private readonly load: (previous: T | undefined) => Promise<T>,
    private readonly maxAgeMs: number,
  ) {}

  async get(): Promise<T> {
    if (this.value !== undefined && Date.now() - this.at < this.maxAgeMs) return this.value;
    this.loading ??= this.load(this.value)
      .then(
        (v) => {
          this.value = v;
          this.at = Date.now();
          this.failing = false;
          return v;
        },
        (err: unknown) => {
          if (this.value === undefined) throw err;
          this.at = Date.now();
          this.failing = true;
          return this.value;
        },
      )
      .finally(() => {
        this.loading = null;
      });
    return this.failing && this.value !== undefined ? this.value : this.loading;
  }

  invalidate() {
    this.at = 0;
  }
}
