// How long pre-created clusters take from pre-creation to registration, against the fleet's
// objective: the Overview's provisioning figures. Pure: the server reads the times, this sums
// them up, so the figures are the same whichever engine stored them.

/** The objective for creating a cluster: pre-created to registered in under this many minutes. */
export const PROVISIONING_OBJECTIVE_MINUTES = 10;

/** The provisioning times of the clusters pre-created in a window that have registered since. */
export type ProvisioningTimes = {
  /** how many registered (each counted once) */
  registered: number;
  /** the median and the 90th percentile (nearest rank), and the longest; null when none registered */
  p50Ms: number | null;
  p90Ms: number | null;
  maxMs: number | null;
  /** how many registered within the objective */
  withinObjective: number;
};

/**
 * The nearest-rank percentile of ascending `sorted` (`p` in (0, 1]): the smallest value with at
 * least that share of the values at or below it, so the figure is always a time that was measured.
 */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (!sorted.length) return null;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/**
 * Sums up provisioning durations in milliseconds. A duration below zero (a clock moved back) is
 * read as zero rather than dropped: the cluster did register.
 */
export function provisioningTimes(
  durationsMs: readonly number[],
  objectiveMinutes = PROVISIONING_OBJECTIVE_MINUTES,
): ProvisioningTimes {
  const sorted = durationsMs.map((d) => Math.max(0, d)).sort((a, b) => a - b);
  const objectiveMs = objectiveMinutes * 60_000;
  return {
    registered: sorted.length,
    p50Ms: nearestRank(sorted, 0.5),
    p90Ms: nearestRank(sorted, 0.9),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : null,
    // Under the objective, as the seeds put it: ten minutes exactly is not under ten minutes.
    withinObjective: sorted.filter((d) => d < objectiveMs).length,
  };
}
