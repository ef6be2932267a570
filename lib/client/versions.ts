"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CompatibilityMatrix } from "@/lib/domain/compatibility";
import { settingsRoutes } from "@/lib/contracts/settings";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Versions page: the fleet's versions and the compatibility matrix.

/** Versions change when agents register or upgrade: a minute keeps the page honest cheaply. */
const VERSIONS_REFRESH_MS = 60_000;

export type { VersionsOverview } from "@/lib/contracts/settings";

export function useVersions() {
  return useQuery({
    queryKey: queryKeys.versions,
    queryFn: ({ signal }) => fetchJson(settingsRoutes.versions.path, { signal, schema: settingsRoutes.versions.response }),
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
