"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { clusterApiRoutes, type CreateCapiSource, type UpdateCapiSource } from "@/lib/contracts/cluster-api";
import type { CapiStep } from "@/lib/domain/cluster-api";
import { routeUrl } from "@/lib/contracts/route";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Cluster API page and of the cluster page's Cluster API card. A source's
// kubeconfig goes up in a create or an edit and never comes back: nothing here caches it.

export type { CapiClusterView, CapiSourceView } from "@/lib/contracts/cluster-api";

// The watch and the importer run every 2 s on the server and steps move on their own (a control
// plane initialising, an apply retried after its back-off): while the page is open, follow them
// at this pace, slow enough that a tab left open costs the server little.
const CLUSTER_API_POLL_MS = 5_000;

export type CapiClusterFilters = { source?: string; step?: CapiStep };

export function useCapiSources() {
  const route = clusterApiRoutes.listSources;
  return useQuery({
    queryKey: queryKeys.clusterApi.sources,
    queryFn: ({ signal }) => fetchJson(route.path, { signal, schema: route.response }),
    refetchInterval: CLUSTER_API_POLL_MS,
  });
}

export function useCapiClusters(filters: CapiClusterFilters) {
  const route = clusterApiRoutes.listClusters;
  return useQuery({
    queryKey: queryKeys.clusterApi.clusters(filters),
    queryFn: ({ signal }) =>
      fetchJson(routeUrl(route, {}, { source: filters.source, step: filters.step }), { signal, schema: route.response }),
    select: (d) => d.items,
    refetchInterval: CLUSTER_API_POLL_MS,
    // A filter change keeps the previous rows on screen until the new ones arrive.
    placeholderData: (previous) => previous,
  });
}

/** The Cluster API origin of a fleet cluster: null when it was not imported (the card then shows nothing). */
export function useClusterCapiOrigin(clusterId: string) {
  const route = clusterApiRoutes.forCluster;
  return useQuery({
    queryKey: queryKeys.clusterApi.forCluster(clusterId),
    queryFn: ({ signal }) => fetchJson(routeUrl(route, { id: clusterId }), { signal, schema: route.response }),
    select: (d) => d.item,
    // Only an imported cluster's step moves; a cluster that was not imported is not asked again.
    refetchInterval: (q) => (q.state.data?.item ? CLUSTER_API_POLL_MS : false),
  });
}

function useClusterApiMutation<I, O>(fn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.clusterApi.all });
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

export const useCreateCapiSource = () =>
  useClusterApiMutation((input: CreateCapiSource) => {
    const route = clusterApiRoutes.createSource;
    return fetchJson(route.path, { method: "POST", body: input, schema: route.response });
  });

export const useUpdateCapiSource = () =>
  useClusterApiMutation(({ id, patch }: { id: string; patch: UpdateCapiSource }) => {
    const route = clusterApiRoutes.updateSource;
    return fetchJson(routeUrl(route, { id }), { method: "PATCH", body: patch, schema: route.response });
  });

export const useDeleteCapiSource = () =>
  useClusterApiMutation((id: string) => fetchJson(routeUrl(clusterApiRoutes.deleteSource, { id }), { method: "DELETE" }));

export const useRetryCapiCluster = () =>
  useClusterApiMutation((id: string) => {
    const route = clusterApiRoutes.retryCluster;
    return fetchJson(routeUrl(route, { id }), { method: "POST", body: {}, schema: route.response });
  });

export const useClearCapiMark = () =>
  useClusterApiMutation((id: string) => {
    const route = clusterApiRoutes.clearMark;
    return fetchJson(routeUrl(route, { id }), { method: "POST", body: {}, schema: route.response });
  });
