"use client";

import { useQuery } from "@tanstack/react-query";
import { fleetRoutes } from "@/lib/contracts/fleet";
import { fetchJson } from "./fetch-json";
import { useLiveEvents, whileDown } from "./live-events";
import { queryKeys } from "./query-keys";

// Data hooks of the Overview page; the event stream (live-events.ts) keeps its cache current.

export type { Overview, StatusCounts } from "@/lib/contracts/fleet";

/**
 * The overview's charts have one-minute buckets: refetching more often shows nothing new. Its
 * counts move with the stream: a fleet role's from the fleet summary every 2 s; a team member gets
 * no summary (it counts the whole fleet), so theirs are refetched after each event of one of their
 * clusters (live-events.ts, applyLiveEvent) and by this poll.
 */
const OVERVIEW_REFRESH_MS = 60_000;

export function useOverview() {
  const live = useLiveEvents();
  return useQuery({
    queryKey: queryKeys.overview,
    queryFn: ({ signal }) => fetchJson(fleetRoutes.overview.path, { signal, schema: fleetRoutes.overview.response }),
    refetchInterval: whileDown(live, OVERVIEW_REFRESH_MS),
  });
}
