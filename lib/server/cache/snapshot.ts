import "server-only";

/**
 * How long past maxAgeMs a value is still served while its reload runs. A reload waits its turn
 * behind other work on the database (on SQLite a registration wave's transactions, one at a time):
 * heartbeats, which read snapshots only, must not wait with it.
 */
const SERVE_STALE_MS = 10_000;

/**
 * A value loaded from the database at most once per `maxAgeMs`, shared by every caller: the
 * first caller after it goes stale starts a reload, and callers keep getting the value they had
 * until the reload lands (for at most SERVE_STALE_MS more). `invalidate()` is for changes made on
 * this instance: the next caller waits for a reload that started after it, so the change shows at
 * once; changes made on another instance show within about maxAgeMs.
 *
 * A reload that fails keeps serving the last value (and tries again after maxAgeMs): while the
 * database is away, heartbeats of known agents are answered from what was loaded before
 * (docs/operations/failure-modes.md). Once a reload has failed, callers no longer wait for the next
 * one (a database that neither answers nor refuses would hold every heartbeat for the pool's
 * connect timeout). Only a snapshot that never loaded throws.
 */
export class Snapshot<T> {
  private value: T | undefined;
  private at = 0;
  private loading: Promise<T> | null = null;
  private failing = false;
  /** Bumped by invalidate(); the value is current when it was loaded for the latest one. */
  private generation = 0;
  private loadedGeneration = 0;

  constructor(
    private readonly load: (previous: T | undefined) => Promise<T>,
    private readonly maxAgeMs: number,
  ) {}

  async get(): Promise<T> {
    for (;;) {
      const age = Date.now() - this.at;
      const current = this.value !== undefined && this.loadedGeneration === this.generation;
      if (current && age < this.maxAgeMs) return this.value!;
      this.loading ??= this.reload();
      if (this.value !== undefined && (this.failing || (current && age < this.maxAgeMs + SERVE_STALE_MS))) return this.value;
      const wanted = this.generation;
      const value = await this.loading;
      // A reload that began before the latest invalidate() does not count: wait for the next one.
      if (this.failing || this.loadedGeneration >= wanted) return value;
    }
  }

  invalidate() {
    this.generation++;
  }

  private reload(): Promise<T> {
    const generation = this.generation;
    return this.load(this.value)
      .then(
        (v) => {
          this.value = v;
          this.at = Date.now();
          this.loadedGeneration = generation;
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
  }
}
