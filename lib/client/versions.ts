"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CompatibilityMatrix } from "@/lib/domain/compatibility";
import { settingsRoutes, type FlaggedQuery } from "@/lib/contracts/settings";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Versions page: the fleet's versions and the compatibility matrix.

/** Versions change when agents register or upgrade: a minute keeps the page honest cheaply. */
const VERSIONS_REFRESH_MS = 60_000;

export type { FlaggedCluster, VersionsOverview } from "@/lib/contracts/settings";
export { VERSION_FLAGS } from "@/lib/contracts/settings";

export const FLAGGED_PAGE_SIZE = 100;

export function useVersions() {
  return useQuery({
    queryKey: queryKeys.versions,
    queryFn: ({ signal }) => fetchJson(settingsRoutes.versions.path, { signal, schema: settingsRoutes.versions.response }),
    refetchInterval: VERSIONS_REFRESH_MS,
  });
}

/** The flagged clusters of one filter, a page at a time ("Show more" fetches the next). */
export function useFlaggedClusters(flag: FlaggedQuery["flag"]) {
  return useInfiniteQuery({
    queryKey: queryKeys.flaggedClusters(flag ?? "all"),
    queryFn: ({ signal, pageParam }) =>
      fetchJson(
        `${settingsRoutes.flagged.path}?${new URLSearchParams({
          ...(flag ? { flag } : {}),
          offset: String(pageParam),
          limit: String(FLAGGED_PAGE_SIZE),
        })}`,
        { signal, schema: settingsRoutes.flagged.response },
      ),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextOffset ?? undefined,
    refetchInterval: VERSIONS_REFRESH_MS,
  });
}

function useMatrixMutation<V>(fn: (v: V) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.versions });
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

export function useSaveMatrix() {
  return useMatrixMutation((matrix: CompatibilityMatrix) =>
    fetchJson(settingsRoutes.setCompatibility.path, {
      method: "PUT",
      body: matrix,
      schema: settingsRoutes.setCompatibility.response,
    }),
  );
}

export function useResetMatrix() {
  return useMatrixMutation((_: void) =>
    fetchJson(settingsRoutes.resetCompatibility.path, { method: "DELETE", schema: settingsRoutes.resetCompatibility.response }),
  );
}
