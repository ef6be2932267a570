"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CompatibilityMatrix, VersionFlag } from "@/lib/domain/compatibility";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Versions page: the fleet's versions and the compatibility matrix.

/** Versions change when agents register or upgrade: a minute keeps the page honest cheaply. */
const VERSIONS_REFRESH_MS = 60_000;

export type VersionsOverview = {
  matrix: CompatibilityMatrix;
  edited: boolean;
  agentVersions: { version: string; count: number }[];
  kubernetesVersions: { version: string; count: number }[];
  flaggedCounts: Record<VersionFlag, number>;
  flagged: {
    id: string;
    name: string;
    agentVersion: string | null;
    kubernetesVersion: string | null;
    phase: string;
    flags: VersionFlag[];
  }[];
};

export function useVersions() {
  return useQuery({
    queryKey: queryKeys.versions,
    queryFn: ({ signal }) => fetchJson<VersionsOverview>("/api/v1/versions", { signal }),
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
  return useMatrixMutation((matrix: CompatibilityMatrix) => fetchJson("/api/v1/compatibility", { method: "PUT", body: matrix }));
}

export function useResetMatrix() {
  return useMatrixMutation((_: void) => fetchJson("/api/v1/compatibility", { method: "DELETE" }));
}
