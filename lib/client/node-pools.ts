"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { fleetRoutes } from "@/lib/contracts/fleet";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

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

/** Label keys to group by: the ones on the first few hundred clusters (there is no key index). */
export function useLabelKeys() {
  return useQuery({
    queryKey: queryKeys.nodePools.labelKeys,
    queryFn: ({ signal }) =>
      fetchJson(`${clusterRoutes.list.path}?limit=500`, { signal, schema: clusterRoutes.list.response }).then((d) =>
        [...new Set(d.items.flatMap((c) => Object.keys(c.labels)))].sort(),
      ),
    staleTime: 5 * 60_000,
  });
}
