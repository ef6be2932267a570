"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { fleetRoutes, type GateQuery } from "@/lib/contracts/fleet";
import { routeUrl } from "@/lib/contracts/route";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

export { gateQueryFromSearch, type GateQuery, type GateResult } from "@/lib/contracts/fleet";

// The gate's verdict moves as clusters turn Ready/NotReady; a minute matches how often a pipeline
// would ask, and the page's Refresh asks now.
const GATE_REFRESH_MS = 60_000;

/** GET /api/v1/gate: the very answer a pipeline gets for the same query. */
export function useGate(q: GateQuery, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: queryKeys.gate(q),
    queryFn: ({ signal }) => fetchJson(routeUrl(fleetRoutes.gate, {}, q), { signal, schema: fleetRoutes.gate.response }),
    refetchInterval: GATE_REFRESH_MS,
    placeholderData: keepPreviousData,
    enabled: options.enabled ?? true,
  });
}
