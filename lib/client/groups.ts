"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

export type GroupCounts = { total: number; Ready: number; NotReady: number; other: number };
export type ClusterGroup = {
  id: string;
  name: string;
  description: string | null;
  selector: string;
  /** why the stored selector cannot be used (saved before the selector limits); then no counts */
  selectorError: string | null;
  counts: GroupCounts | null;
  createdAt: string;
  updatedAt: string;
};
export type GroupInput = { name: string; description?: string; selector: string };
export type GroupPatch = { name?: string; description?: string | null; selector?: string };

export type PreviewCluster = { id: string; name: string; status: string; labels: Record<string, string> };
export type SelectorPreview = { items: PreviewCluster[]; total: number };

export const PREVIEW_LIMIT = 10;
// Counts per group move as clusters turn Ready/NotReady; 30 s keeps the bars honest without
// recounting every group's selector every few seconds on a large fleet.
const GROUPS_REFRESH_MS = 30_000;

export function useGroups() {
  return useQuery({
    queryKey: queryKeys.groups.list,
    queryFn: ({ signal }) => fetchJson<{ items: ClusterGroup[] }>("/api/v1/groups", { signal }),
    select: (data) => data.items,
    refetchInterval: GROUPS_REFRESH_MS,
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
      fetchJson<SelectorPreview>(
        `/api/v1/clusters?${new URLSearchParams({ selector: selector ?? "", limit: String(PREVIEW_LIMIT) })}`,
        { signal },
      ),
    enabled: selector !== null,
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
}

export function useCreateGroup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: GroupInput) => fetchJson<ClusterGroup>("/api/v1/groups", { method: "POST", body: input }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.groups.all }),
  });
}

export function useUpdateGroup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: GroupPatch }) =>
      fetchJson<ClusterGroup>(`/api/v1/groups/${encodeURIComponent(id)}`, { method: "PATCH", body: patch }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.groups.all }),
  });
}

export function useDeleteGroup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<void>(`/api/v1/groups/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.groups.all }),
  });
}
