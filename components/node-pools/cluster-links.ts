import { filtersToSearchParams, DEFAULT_FILTERS } from "@/lib/client/cluster-filters";
import type { ClusterStatus } from "@/lib/domain/status";

/**
 * The cluster list filtered to one value of a label (a row of a capacity chart), optionally to
 * one status: `region=eu-west-1`, or `!region` for the clusters without the label.
 */
export function clustersWithLabel(by: string, value: string, status?: ClusterStatus): string {
  const selector = value === "(none)" ? `!${by}` : `${by}=${value}`;
  return `/clusters?${filtersToSearchParams({ ...DEFAULT_FILTERS, selector, status })}`;
}
