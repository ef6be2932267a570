"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { DeregistrationStep } from "@/lib/domain/deregistration";
import type { Labels } from "@/lib/domain/labels";
import { groupRoutes, type ClusterGroup } from "@/lib/contracts/groups";
import { routeUrl } from "@/lib/contracts/route";
import {
  clusterRoutes,
  clusterDetailSchema,
  clusterHeartbeatsSchema,
  clusterListSchema,
  preCreatedClusterSchema,
  type ClusterDetail,
  type RetireNodePoolInput,
} from "@/lib/contracts/clusters";
import type { SnoozeClusterInput } from "@/lib/contracts/clusters";
import { deregistrationSchema, type DeregistrationRequest } from "@/lib/contracts/deregistration";
import { fleetFactsSchema } from "@/lib/contracts/tokens";
import { listQueryParams, type ClusterFilters } from "./cluster-filters";
import { fetchJson } from "./fetch-json";
import { useLiveEvents, whileDown } from "./live-events";
import { queryKeys } from "./query-keys";

// Data hooks of the cluster list, the cluster detail and the drain-then-deregister wizard.
// The event stream (live-events.ts) keeps these caches current; the intervals below are only
// for what the stream does not carry, or for when the stream is down.

// ---------------------------------------------------------------------------------------------
// Shapes of the admin API answers: declared once, in lib/contracts.

export type {
  ChecklistItem,
  ClusterDetail,
  ClusterEvent,
  ClusterHeartbeats,
  ClusterList,
  ClusterListItem,
  NodePool,
  PreCreated,
} from "@/lib/contracts/clusters";
export type { Deregistration, DeregistrationRequest, ForcedSkip, VerificationCheck } from "@/lib/contracts/deregistration";
export type { FleetFacts } from "@/lib/contracts/tokens";

/** The groups the cluster filters offer (GET /api/v1/groups). */
export type ClusterGroupSummary = Pick<ClusterGroup, "id" | "name" | "description" | "selector" | "counts">;

// ---------------------------------------------------------------------------------------------
// Refresh intervals, each with its reason.

/** Heartbeats are not events (one per cluster per interval would flood the stream): "last seen" is refetched. */
const LAST_SEEN_REFRESH_MS = 15_000;
/** The heartbeat timeline has one-minute bars. */
const TIMELINE_REFRESH_MS = 60_000;

function listUrl(f: ClusterFilters): string {
  return `/api/v1/clusters?${listQueryParams(f)}`;
}

export function useClusters(filters: ClusterFilters) {
  const live = useLiveEvents();
  return useQuery({
    queryKey: queryKeys.clusters.list(filters),
    queryFn: ({ signal }) => fetchJson(listUrl(filters), { signal, schema: clusterListSchema }),
    // The previous page stays on screen while the next loads: no jump to a skeleton on every keystroke.
    placeholderData: keepPreviousData,
    refetchInterval: whileDown(live, LAST_SEEN_REFRESH_MS),
  });
}

export function useCluster(id: string) {
  const live = useLiveEvents();
  return useQuery({
    queryKey: queryKeys.clusters.detail(id),
    queryFn: ({ signal }) => fetchJson(`/api/v1/clusters/${encodeURIComponent(id)}`, { signal, schema: clusterDetailSchema }),
    refetchInterval: (q) => (q.state.error ? false : whileDown(live, LAST_SEEN_REFRESH_MS)),
  });
}

export function useClusterHeartbeats(id: string) {
  return useQuery({
    queryKey: queryKeys.clusters.heartbeats(id),
    queryFn: ({ signal }) =>
      fetchJson(`/api/v1/clusters/${encodeURIComponent(id)}/heartbeats?minutes=360`, { signal, schema: clusterHeartbeatsSchema }),
    refetchInterval: (q) => (q.state.error ? false : TIMELINE_REFRESH_MS),
  });
}

export function useFleet() {
  // Fleet facts change only when an admin edits settings: the default stale time is plenty.
  return useQuery({
    queryKey: queryKeys.fleet,
    queryFn: ({ signal }) => fetchJson("/api/v1/fleet", { signal, schema: fleetFactsSchema }),
  });
}

/** `enabled: false` for someone without a fleet role: groups are the fleet's, and the API refuses them. */
export function useGroups({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: queryKeys.groups.list,
    queryFn: ({ signal }) => fetchJson(groupRoutes.list.path, { signal, schema: groupRoutes.list.response }),
    staleTime: 60_000,
    enabled,
  });
}

/**
 * Replaces a cluster's labels. The cached detail shows the new labels at once and goes back to
 * the server's copy if the server refuses (the caller shows the server's message).
 */
export function useUpdateLabels(id: string) {
  const client = useQueryClient();
  const key = queryKeys.clusters.detail(id);
  return useMutation({
    mutationFn: (labels: Labels) =>
      fetchJson(`/api/v1/clusters/${encodeURIComponent(id)}`, { method: "PATCH", body: { labels }, schema: clusterDetailSchema }),
    onMutate: async (labels) => {
      await client.cancelQueries({ queryKey: key });
      const previous = client.getQueryData<ClusterDetail>(key);
      if (previous) client.setQueryData<ClusterDetail>(key, { ...previous, labels });
      return { previous };
    },
    onError: (_err, _labels, context) => {
      if (context?.previous) client.setQueryData(key, context.previous);
    },
    onSuccess: (detail) => {
      client.setQueryData(key, detail);
    },
    onSettled: () => {
      void client.invalidateQueries({ queryKey: queryKeys.clusters.lists });
      void client.invalidateQueries({ queryKey: queryKeys.overview });
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

/** Owner and notes (descriptive, operators): PATCH /api/v1/clusters/{id}, audited. */
export function useUpdateClusterNotes(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: { owner: string | null; notes: string | null }) =>
      fetchJson(routeUrl(clusterRoutes.update, { id }), { method: "PATCH", body: patch, schema: clusterRoutes.update.response }),
    onSuccess: (detail) => client.setQueryData(queryKeys.clusters.detail(id), detail),
    onSettled: () => void client.invalidateQueries({ queryKey: queryKeys.audit.all }),
  });
}

/** Snooze a known-broken cluster, or end its snooze (operators): POST / DELETE /api/v1/clusters/{id}/snooze, audited. */
export function useSnoozeCluster(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: SnoozeClusterInput | null) =>
      input
        ? fetchJson(routeUrl(clusterRoutes.snooze, { id }), {
            method: "POST",
            body: input,
            schema: clusterRoutes.snooze.response,
          })
        : fetchJson(routeUrl(clusterRoutes.unsnooze, { id }), { method: "DELETE", schema: clusterRoutes.unsnooze.response }),
    onSuccess: (detail) => client.setQueryData(queryKeys.clusters.detail(id), detail),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: queryKeys.clusters.lists });
      void client.invalidateQueries({ queryKey: queryKeys.overview });
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}
/** What a node pool's drain may lose (kubectl drain's --force and --delete-emptydir-data). */
export type DrainOptions = { force: boolean; deleteEmptyDirData: boolean };

/** Retires one node pool: the agent drains it (drainNodePool directive). */
export function useRetireNodePool(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ pool, ...body }: { pool: string } & RetireNodePoolInput) =>
      fetchJson(routeUrl(clusterRoutes.retireNodePool, { id, pool }), {
        method: "POST",
        body,
        schema: clusterRoutes.retireNodePool.response,
      }),
    onSuccess: (detail) => client.setQueryData(queryKeys.clusters.detail(id), detail),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: ["node-pools"] });
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

export function useRevokeCertificate(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (reason: string) =>
      fetchJson(routeUrl(clusterRoutes.revokeCertificate, { id }), {
        method: "POST",
        body: { reason },
        schema: clusterRoutes.revokeCertificate.response,
      }),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: queryKeys.clusters.detail(id) });
      void client.invalidateQueries({ queryKey: queryKeys.overview });
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

/**
 * Pre-creates a cluster (phase Provisioning). The answer holds the claim token's secret: the
 * finished mutation is dropped as soon as nothing shows it (as with minting a token).
 */
export function usePreCreateCluster() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; labels: Labels; description?: string }) =>
      fetchJson("/api/v1/clusters", { method: "POST", body: input, schema: preCreatedClusterSchema }),
    gcTime: 0,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.clusters.lists });
      void client.invalidateQueries({ queryKey: queryKeys.overview });
      void client.invalidateQueries({ queryKey: queryKeys.tokens.all });
    },
  });
}

// ---------------------------------------------------------------------------------------------
// The drain-then-deregister wizard

/**
 * While a step waits on the agent (pods draining, disconnect acknowledged) the wizard polls every
 * 2 s: agents heartbeat every 2-15 s, so 2 s shows each report soon after it lands without
 * hammering the server. Steps that wait for a person are re-read every 15 s only so a second
 * operator's action shows up; a removed cluster never changes again, so polling stops.
 */
export const WIZARD_AGENT_POLL_MS = 2_000;
const WIZARD_PERSON_POLL_MS = 15_000;

export function wizardPollInterval(step: DeregistrationStep | null | undefined): number | false {
  if (step === "removed") return false;
  if (step === "draining" || step === "disconnecting") return WIZARD_AGENT_POLL_MS;
  return WIZARD_PERSON_POLL_MS;
}

function deregistrationUrl(clusterId: string) {
  return `/api/v1/clusters/${encodeURIComponent(clusterId)}/deregistration`;
}

export function useDeregistration(clusterId: string) {
  return useQuery({
    queryKey: queryKeys.deregistration(clusterId),
    queryFn: ({ signal }) => fetchJson(deregistrationUrl(clusterId), { signal, schema: deregistrationSchema }),
    refetchInterval: (query) => wizardPollInterval(query.state.data?.step),
    // The poll is for the person watching; a hidden tab can catch up when it is shown again.
    refetchIntervalInBackground: false,
  });
}

export function useDeregistrationAction(clusterId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: DeregistrationRequest) =>
      fetchJson(deregistrationUrl(clusterId), { method: "POST", body, schema: deregistrationSchema }),
    onSuccess: (data) => {
      client.setQueryData(queryKeys.deregistration(clusterId), data);
      void client.invalidateQueries({ queryKey: queryKeys.clusters.all });
      void client.invalidateQueries({ queryKey: queryKeys.overview });
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

export type PodSample = { t: number; pods: number };

/**
 * The drain chart's points: the server's record of the drain (so the whole curve shows whenever
 * the page is opened), then the count just read, so the line reaches the present.
 */
export function podSamples(history: readonly { at: string; pods: number }[], pods: number | null, readAt: number): PodSample[] {
  const points = history.map((h) => ({ t: Date.parse(h.at), pods: h.pods }));
  const last = points[points.length - 1];
  if (pods !== null && (!last || readAt > last.t)) points.push({ t: readAt, pods });
  return points;
}
