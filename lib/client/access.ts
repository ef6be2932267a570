"use client";

import { useQuery } from "@tanstack/react-query";
import { meRoutes } from "@/lib/contracts/me";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hook of "Your access" (lib/contracts/me.ts).

export type { MyAccess, TeamGrantWhy } from "@/lib/contracts/me";

/** Roles change when an admin changes them, not while a page is open: read once a page view, no polling. */
export function useMyAccess() {
  return useQuery({
    queryKey: queryKeys.myAccess,
    queryFn: ({ signal }) => fetchJson(meRoutes.access.path, { signal, schema: meRoutes.access.response }),
  });
}
