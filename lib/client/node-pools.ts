"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { fleetRoutes } from "@/lib/contracts/fleet";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";
import { useLabelSummary } from "./labels";

// Data hooks of the Node pools page.

/** Capacity moves with heartbeats (pools scale, nodes turn ready): 30 s, like the group counts. */
const CAPACITY_REFRESH_MS = 30_000;

export type { Capacity } from "@/lib/contracts/fleet";

export function useCapacity(by: string) {
  return useQuery({
    queryKey: queryKeys.nodePools.capacity(by),
    queryFn: ({ signal }) =>
      fetchJson(`${fleetRoutes.capacity.path}?${new URLSearchParams({ by })}`, { signal, schema: fleetRoutes.capacity.response }),
    refetchInterval: CAPACITY_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}

/** Label keys to group by: every key in the fleet (GET /api/v1/labels). */
export function useLabelKeys() {
  const labels = useLabelSummary();
  return { ...labels, data: labels.data?.keys.map((k) => k.key) };
}
