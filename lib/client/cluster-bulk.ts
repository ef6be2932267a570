"use client";

import { useCallback, useSyncExternalStore } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  clusterRoutes,
  type BulkDeregistrationInput,
  type BulkLabelsInput,
  type BulkRetireNodePoolInput,
  type SavedViewInput,
} from "@/lib/contracts/clusters";
import { routeUrl } from "@/lib/contracts/route";
import { filterOf, filtersToSearchParams, type ClusterFilters } from "./cluster-filters";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Acting on many clusters from the list: the selection, bulk actions, exports, saved
// views and the list's column choice.

export type { BulkDeregistrationResult, BulkLabelsResult, SavedView } from "@/lib/contracts/clusters";

/** What is selected: ids picked on screen, or every cluster the filter matches (evaluated again when the action runs). */
export type Selection =
  { kind: "ids"; ids: string[] } | { kind: "matching"; filters: ClusterFilters; count: number; capped: boolean };

/** The selection as bulk endpoints take it. */
export function selectionBody(s: Selection): { ids: string[] } | { filter: ReturnType<typeof filterOf> } {
  return s.kind === "ids" ? { ids: s.ids } : { filter: filterOf(s.filters) };
}

export function exportUrl(f: ClusterFilters, format: "csv" | "json"): string {
  return routeUrl(clusterRoutes.export, {}, { ...filterOf(f), sort: f.sort, order: f.order, format });
}

/**
 * The new-rollout page prefilled with the selection. "All matching" a selector or a group alone
 * passes it on (the rollout then targets it as such); any other filter is passed whole and the
 * page turns it into the clusters it matches when it opens; picked clusters are passed as ids.
 */
export function rolloutUrl(s: Selection): string {
  const params = new URLSearchParams();
  if (s.kind === "ids") params.set("clusters", s.ids.join(","));
  else {
    const filter = filterOf(s.filters);
    const keys = Object.keys(filter);
    if (keys.length === 1 && filter.selector) params.set("selector", filter.selector);
    else if (keys.length === 1 && filter.group) params.set("group", filter.group);
    else params.set("matching", new URLSearchParams(filter as Record<string, string>).toString());
  }
  return `/rollouts/new?${params}`;
}

/** The form's prefill from the page's query: a selector or a group (explicit clusters are resolved by the page). */
export function rolloutPrefill(params: URLSearchParams): { target?: "group" | "selector"; selector?: string; groupId?: string } {
  const selector = params.get("selector")?.trim();
  const group = params.get("group")?.trim();
  return selector ? { target: "selector", selector } : group ? { target: "group", groupId: group } : {};
}

function invalidateClusters(client: ReturnType<typeof useQueryClient>) {
  void client.invalidateQueries({ queryKey: queryKeys.clusters.all });
  void client.invalidateQueries({ queryKey: queryKeys.overview });
  void client.invalidateQueries({ queryKey: queryKeys.audit.all });
}

export function useBulkLabels() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: BulkLabelsInput) =>
      fetchJson(clusterRoutes.bulkLabels.path, { method: "POST", body, schema: clusterRoutes.bulkLabels.response }),
    onSuccess: (r) => {
      if (!r.dryRun) invalidateClusters(client);
    },
  });
}

export function useBulkDeregistration() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: BulkDeregistrationInput) =>
      fetchJson(clusterRoutes.bulkDeregistration.path, {
        method: "POST",
        body,
        schema: clusterRoutes.bulkDeregistration.response,
      }),
    onSuccess: (r) => {
      if (!r.dryRun) invalidateClusters(client);
    },
  });
}

/** Cancels a bulk drain's drains that wait in the queue (those started go on in their wizards). */
export function useCancelDrainBatch() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (batchId: string) =>
      fetchJson(routeUrl(clusterRoutes.cancelDrainBatch, { batchId }), {
        method: "DELETE",
        schema: clusterRoutes.cancelDrainBatch.response,
      }),
    onSuccess: () => invalidateClusters(client),
  });
}

export function useBulkRetireNodePool() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: BulkRetireNodePoolInput) =>
      fetchJson(clusterRoutes.bulkRetireNodePool.path, {
        method: "POST",
        body,
        schema: clusterRoutes.bulkRetireNodePool.response,
      }),
    onSuccess: (r) => {
      if (!r.dryRun) invalidateClusters(client);
    },
  });
}

export function useSavedViews() {
  // Views change only when someone saves or deletes one; a minute is fresh enough.
  return useQuery({
    queryKey: queryKeys.clusters.views,
    queryFn: ({ signal }) => fetchJson(clusterRoutes.listViews.path, { signal, schema: clusterRoutes.listViews.response }),
    staleTime: 60_000,
  });
}

export function useCreateView() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: SavedViewInput) =>
      fetchJson(clusterRoutes.createView.path, { method: "POST", body, schema: clusterRoutes.createView.response }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.clusters.views }),
  });
}

export function useDeleteView() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson(routeUrl(clusterRoutes.deleteView, { id }), { method: "DELETE" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.clusters.views }),
  });
}

/** A saved view's link: the list with its query. */
export function viewHref(query: string): string {
  return query ? `/clusters?${query}` : "/clusters";
}

/** The query a view saves: the list's URL without its cursor. */
export function viewQuery(f: ClusterFilters): string {
  return filtersToSearchParams({ ...f, cursor: undefined }).toString();
}

// ---------------------------------------------------------------------------------------------
// Column choice, kept per browser in localStorage.

const COLUMNS_KEY = "fleet.clusters.columns";
const listeners = new Set<() => void>();

function readColumns(): string | null {
  try {
    return window.localStorage.getItem(COLUMNS_KEY);
  } catch {
    return null;
  }
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

/**
 * The optional columns shown: `defaults` until the person chooses, then their choice. Unknown
 * keys from an older choice are dropped by the caller's column list.
 */
export function useColumnChoice(defaults: readonly string[]): [string[], (keys: string[]) => void] {
  const stored = useSyncExternalStore(subscribe, readColumns, () => null);
  let shown: string[] = [...defaults];
  if (stored) {
    try {
      const parsed: unknown = JSON.parse(stored);
      if (Array.isArray(parsed)) shown = parsed.filter((k): k is string => typeof k === "string");
    } catch {}
  }
  const set = useCallback((keys: string[]) => {
    try {
      window.localStorage.setItem(COLUMNS_KEY, JSON.stringify(keys));
    } catch {}
    for (const l of listeners) l();
  }, []);
  return [shown, set];
}
