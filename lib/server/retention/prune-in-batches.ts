import "server-only";

// Old rows are deleted a bounded batch at a time: each statement holds its locks (SQLite's one
// write lock, PostgreSQL's row locks) for milliseconds, and the pause between batches lets the
// heartbeat writer's flushes in. A run that has not caught up when its time budget is spent stops
// and the next tick continues, so a lowered retention never turns into one long delete.

export type BatchLimits = {
  /** Rows one statement deletes at most. */
  batchSize: number;
  /** A run stops starting batches after this long; the next run goes on. */
  budgetMs: number;
  /** Wait between two batches. */
  pauseMs: number;
};

// A short budget also keeps shutdown quick: the job runner waits for runs in flight.
export const DEFAULT_BATCH_LIMITS: BatchLimits = { batchSize: 1_000, budgetMs: 2_000, pauseMs: 10 };

export type BatchClock = { now(): number; sleep(ms: number): Promise<void> };

const realClock: BatchClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Calls `deleteBatch(limit)` (which deletes at most `limit` of the oldest expired rows and says
 * how many it deleted) until a batch comes back short, or the budget is spent.
 * `caughtUp` is false when rows may remain.
 */
export async function pruneInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  limits: BatchLimits = DEFAULT_BATCH_LIMITS,
  clock: BatchClock = realClock,
): Promise<{ deleted: number; batches: number; caughtUp: boolean }> {
  const started = clock.now();
  let deleted = 0;
  let batches = 0;
  for (;;) {
    const n = await deleteBatch(limits.batchSize);
    deleted += n;
    batches++;
    // Short: nothing older is left (or another instance is deleting the rest at this moment).
    if (n < limits.batchSize) return { deleted, batches, caughtUp: true };
    if (clock.now() - started >= limits.budgetMs) return { deleted, batches, caughtUp: false };
    await clock.sleep(limits.pauseMs);
  }
}
