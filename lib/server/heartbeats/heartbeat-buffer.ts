// The heartbeat writer's memory while the database cannot take its batches
// (docs/operations/failure-modes.md): what a failed flush puts back, and what goes first when the buffer is full. Pure, so
// the rules are unit-tested without a database (tests/unit/server/heartbeat-buffer.test.ts).

/**
 * How much is held while flushes fail. Facts are one entry per cluster (the newest), so the cap
 * only bites for fleets larger than it; per-minute counts grow by one entry per cluster and
 * minute, so at 10,000 clusters the cap holds about ten minutes of outage. When over, the buffer
 * is cut to CUT_TO of the cap at once, so the (sorting) cut happens rarely.
 */
export const BUFFER_LIMITS = { facts: 50_000, counts: 100_000 };
const CUT_TO = 0.9;

/**
 * Puts back the facts of a batch that failed, unless newer facts for the same cluster arrived
 * while it was being written (those replace them anyway).
 */
export function requeueFacts<F>(pending: Map<string, F>, failed: Map<string, F>): void {
  for (const [id, facts] of failed) if (!pending.has(id)) pending.set(id, facts);
}

/** Puts back the per-minute counts of a batch that failed, added to those counted since. */
export function requeueCounts(buckets: Map<string, number>, failed: Map<string, number>): void {
  for (const [key, n] of failed) buckets.set(key, (buckets.get(key) ?? 0) + n);
}

/**
 * Cuts the facts over the cap: first those that only refresh a time already written (unchanged
 * since the last write), oldest first, then the oldest of the rest. Returns how many were dropped.
 */
export function trimFacts<F extends { at: Date }>(
  pending: Map<string, F>,
  unchanged: (clusterId: string, facts: F) => boolean,
  limit = BUFFER_LIMITS.facts,
): number {
  if (pending.size <= limit) return 0;
  const order = [...pending].map(([id, f]) => ({ id, at: f.at.getTime(), unchanged: unchanged(id, f) }));
  order.sort((a, b) => (a.unchanged === b.unchanged ? a.at - b.at : a.unchanged ? -1 : 1));
  const drop = pending.size - Math.floor(limit * CUT_TO);
  for (const { id } of order.slice(0, drop)) pending.delete(id);
  return drop;
}

/** Cuts the per-minute counts over the cap, oldest minutes first. Returns how many were dropped. */
export function trimCounts(buckets: Map<string, number>, limit = BUFFER_LIMITS.counts): number {
  if (buckets.size <= limit) return 0;
  const minute = (key: string) => Number(key.slice(key.lastIndexOf("|") + 1));
  const keys = [...buckets.keys()].sort((a, b) => minute(a) - minute(b));
  const drop = buckets.size - Math.floor(limit * CUT_TO);
  for (const key of keys.slice(0, drop)) buckets.delete(key);
  return drop;
}
