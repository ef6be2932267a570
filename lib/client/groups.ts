"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { groupRoutes, type GroupInput, type GroupPatch } from "@/lib/contracts/groups";
import { routeUrl } from "@/lib/contracts/route";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

export type { ClusterGroup, GroupCounts, GroupInput, GroupPatch } from "@/lib/contracts/groups";

export const PREVIEW_LIMIT = 10;
// Counts per group move as clusters turn Ready/NotReady; 30 s keeps the bars honest without
// recounting every group's selector every few seconds on a large fleet.
const GROUPS_REFRESH_MS = 30_000;

/** `enabled` false: not asked (groups are the fleet's; someone with team roles only cannot list them). */
export function useGroups({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: queryKeys.groups.list,
    queryFn: ({ signal }) => fetchJson(groupRoutes.list.path, { signal, schema: groupRoutes.list.response }),
    select: (data) => data.items,
    refetchInterval: GROUPS_REFRESH_MS,
    enabled,
  });
}

/**
 * The first clusters a selector matches and how many in all. `selector` must already parse
 * client-side (the caller debounces and checks), so a 400 here is a server-side disagreement.
 * Keeps the previous answer while the next loads, so the preview does not flash while typing.
 */
export function useSelectorPreview(selector: string | null) {
  return useQuery({
    queryKey: queryKeys.groups.preview(selector ?? ""),
    queryFn: ({ signal }) =>
      fetchJson(`${clusterRoutes.list.path}?${new URLSearchParams({ selector: selector ?? "", limit: String(PREVIEW_LIMIT) })}`, {
        signal,
        schema: clusterRoutes.list.response,
      }),
    enabled: selector !== null,
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
}

export function useCreateGroup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: GroupInput) =>
      fetchJson(groupRoutes.create.path, { method: "POST", body: input, schema: groupRoutes.create.response }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.groups.all }),
  });
}

export function useUpdateGroup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: GroupPatch }) =>
      fetchJson(routeUrl(groupRoutes.update, { id }), { method: "PATCH", body: patch, schema: groupRoutes.update.response }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.groups.all }),
  });
}

export function useDeleteGroup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<void>(routeUrl(groupRoutes.delete, { id }), { method: "DELETE" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.groups.all }),
  });
}
