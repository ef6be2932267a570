"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Labels } from "@/lib/domain/labels";
import type { ClusterStatus } from "@/lib/domain/status";
import { queryKeys } from "./queries";
import { fetchJson } from "./fetch-json";
import { useLiveEvents, type LiveState } from "./live-events";
import { tokenKeys, type MintedToken } from "./tokens";

// Data hooks and query keys of the overview, the cluster list and the cluster detail.
// The event stream (live-events.ts) keeps these caches current; the intervals below are only
// for what the stream does not carry, or for when the stream is down.

// ---------------------------------------------------------------------------------------------
// Shapes of the admin API answers (the parts the console reads).

export type StatusCounts = Record<"Ready" | "NotReady" | "Pending" | "Draining" | "Deregistering" | "Provisioning", number> & {
  total: number;
};

export type Overview = {
  now: string;
  counts: StatusCounts;
  notReadyThresholdSeconds: number;
  heartbeatsPerMinute: { at: string; count: number }[];
  statusHistory: { at: string; Ready: number; NotReady: number; Pending: number; Draining: number }[];
  registrations: {
    windowHours: number;
    total: number;
    succeeded: number;
    failed: number;
    successRate: number | null;
    objective: number;
    byResult: Record<string, number>;
  };
  /** From the server's last enrollment evaluation; null until its first one. */
  enrollment: {
    at: string;
    total: number;
    enrolled: number;
    blockedBy: Record<string, number>;
    labels: Record<string, string>;
  } | null;
  attention: {
    notReadyLongest: { id: string; name: string; since: string; lastHeartbeatAt: string | null; reason: string }[];
    certificatesExpiring: { id: string; name: string; serial: string; notAfter: string }[];
    missingLabels: { id: string; name: string; missing: string[] }[];
  };
};

export type ClusterListItem = {
  id: string;
  name: string;
  status: ClusterStatus;
  phase: string;
  labels: Labels;
  lastHeartbeatAt: string | null;
  agentVersion: string | null;
  kubernetesVersion: string | null;
};

export type ClusterList = {
  items: ClusterListItem[];
  nextCursor: string | null;
  /** exact, unless `totalCapped`: then more than this many match */
  total: number;
  totalCapped: boolean;
  notReadyThresholdSeconds: number;
  now: string;
};

export type ChecklistItem = { key: string; label: string; ok: boolean; state: "pass" | "fail" | "pending"; reason: string };

export type NodePool = {
  name: string;
  nodeCount: number;
  readyNodes: number;
  kubeletVersion: string | null;
  instanceType: string | null;
  cpuCores: number | null;
  memoryGiB: number | null;
  state: string;
};

export type ClusterEvent = { kind: string; from: string | null; to: string; reason: string; at: string };

export type ClusterDetail = ClusterListItem & {
  phaseChangedAt: string;
  apiServerUrl: string | null;
  caFingerprint: string | null;
  registeredAt: string | null;
  registrationToken: { id: string; name: string } | null;
  description: string | null;
  health: { apiServer: string | null; logs: boolean | null; metrics: boolean | null };
  /** userPods: pods outside system namespaces and DaemonSets, when the agent reports them (real clusters). */
  workloads: { pods: number; namespaces: number | null; userPods?: number | null } | null;
  appliedPolicyRevision: string | null;
  nodePools: NodePool[];
  /** Directives the agent acknowledged as failed, with its reason, newest first. */
  failedDirectives: { id: string; type: string; reason: string; at: string | null }[];
  certificate: { serial: string; fingerprint: string; notBefore: string; notAfter: string; revoked: boolean } | null;
  enrollment: { complete: boolean; enrolledAt: string | null; items: ChecklistItem[] };
  groups: { id: string; name: string }[];
  events: ClusterEvent[];
  notReadyThresholdSeconds: number;
};

export type ClusterHeartbeats = { bucketSeconds: number; expectedPerBucket: number; items: { at: string; count: number }[] };

export type FleetFacts = {
  agentUrl: string;
  caFingerprint: string;
  caNotAfter: string;
  agentImage: string;
  notReadyThresholdSeconds: number;
  heartbeatIntervalSeconds: number;
  requiredLabels: string[];
};

export type ClusterGroupSummary = {
  id: string;
  name: string;
  description: string | null;
  selector: string;
  counts: { total: number; Ready: number; NotReady: number; other: number };
};

// ---------------------------------------------------------------------------------------------
// List filters: what the URL of /clusters holds, so a filtered view can be shared.

export const LIST_STATUSES = ["Ready", "NotReady", "Pending", "Draining", "Deregistering", "Provisioning"] as const;
export const LIST_SORTS = ["name", "status", "lastHeartbeatAt", "registeredAt"] as const;
export type ListSort = (typeof LIST_SORTS)[number];
export type SortOrder = "asc" | "desc";
export const PAGE_SIZE = 50;

export type ClusterFilters = {
  status?: ClusterStatus;
  selector?: string;
  group?: string;
  q?: string;
  sort: ListSort;
  order: SortOrder;
  cursor?: string;
};

export const DEFAULT_FILTERS: ClusterFilters = { sort: "name", order: "asc" };

function oneOf<T extends string>(values: readonly T[], v: string | null): T | undefined {
  return v !== null && (values as readonly string[]).includes(v) ? (v as T) : undefined;
}

/** Filters from a query string; unknown or malformed values fall back to the defaults. */
export function filtersFromSearchParams(params: URLSearchParams): ClusterFilters {
  const text = (name: string) => params.get(name)?.trim() || undefined;
  return {
    status: oneOf(LIST_STATUSES, params.get("status")),
    selector: text("selector"),
    group: text("group"),
    q: text("q"),
    sort: oneOf(LIST_SORTS, params.get("sort")) ?? DEFAULT_FILTERS.sort,
    order: oneOf(["asc", "desc"] as const, params.get("order")) ?? DEFAULT_FILTERS.order,
    cursor: text("cursor"),
  };
}

/** The query string of a filtered view; defaults are left out so links stay short. */
export function filtersToSearchParams(f: ClusterFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (f.status) params.set("status", f.status);
  if (f.selector) params.set("selector", f.selector);
  if (f.group) params.set("group", f.group);
  if (f.q) params.set("q", f.q);
  if (f.sort !== DEFAULT_FILTERS.sort || f.order !== DEFAULT_FILTERS.order) {
    params.set("sort", f.sort);
    params.set("order", f.order);
  }
  if (f.cursor) params.set("cursor", f.cursor);
  return params;
}

/** Clicking a column header: a new column starts ascending (newest first for times), the same column flips. */
export function nextSort(
  current: Pick<ClusterFilters, "sort" | "order">,
  column: ListSort,
): Pick<ClusterFilters, "sort" | "order"> {
  if (current.sort === column) return { sort: column, order: current.order === "asc" ? "desc" : "asc" };
  return { sort: column, order: column === "lastHeartbeatAt" || column === "registeredAt" ? "desc" : "asc" };
}

// ---------------------------------------------------------------------------------------------
// Query keys: every key these hooks use, so the event stream can find and patch them.

export const clusterKeys = {
  overview: ["overview"] as const,
  clusters: ["clusters"] as const,
  lists: ["clusters", "list"] as const,
  list: (f: ClusterFilters) => ["clusters", "list", f] as const,
  detail: (id: string) => ["clusters", "detail", id] as const,
  heartbeats: (id: string) => ["clusters", "heartbeats", id] as const,
  fleet: ["fleet"] as const,
  groups: ["groups"] as const,
};

// ---------------------------------------------------------------------------------------------
// Refresh intervals, each with its reason.

/** While the event stream is down, poll what it would have pushed. */
const FALLBACK_POLL_MS = 5_000;
/** The overview's charts have one-minute buckets: refetching more often shows nothing new. */
const OVERVIEW_REFRESH_MS = 60_000;
/** Heartbeats are not events (one per cluster per interval would flood the stream): "last seen" is refetched. */
const LAST_SEEN_REFRESH_MS = 15_000;
/** The heartbeat timeline has one-minute bars. */
const TIMELINE_REFRESH_MS = 60_000;

const whileDown = (live: LiveState, normal: number | false) => (live === "open" ? normal : FALLBACK_POLL_MS);

export function useOverview() {
  const live = useLiveEvents();
  return useQuery({
    queryKey: clusterKeys.overview,
    queryFn: ({ signal }) => fetchJson<Overview>("/api/v1/overview", { signal }),
    refetchInterval: whileDown(live, OVERVIEW_REFRESH_MS),
  });
}

function listUrl(f: ClusterFilters): string {
  const params = filtersToSearchParams(f);
  // The API's defaults are the same; sent anyway so the request says what it wants.
  params.set("sort", f.sort);
  params.set("order", f.order);
  params.set("limit", String(PAGE_SIZE));
  return `/api/v1/clusters?${params}`;
}

export function useClusters(filters: ClusterFilters) {
  const live = useLiveEvents();
  return useQuery({
    queryKey: clusterKeys.list(filters),
    queryFn: ({ signal }) => fetchJson<ClusterList>(listUrl(filters), { signal }),
    // The previous page stays on screen while the next loads: no jump to a skeleton on every keystroke.
    placeholderData: keepPreviousData,
    refetchInterval: whileDown(live, LAST_SEEN_REFRESH_MS),
  });
}

export function useCluster(id: string) {
  const live = useLiveEvents();
  return useQuery({
    queryKey: clusterKeys.detail(id),
    queryFn: ({ signal }) => fetchJson<ClusterDetail>(`/api/v1/clusters/${encodeURIComponent(id)}`, { signal }),
    refetchInterval: (q) => (q.state.error ? false : whileDown(live, LAST_SEEN_REFRESH_MS)),
  });
}

export function useClusterHeartbeats(id: string) {
  return useQuery({
    queryKey: clusterKeys.heartbeats(id),
    queryFn: ({ signal }) =>
      fetchJson<ClusterHeartbeats>(`/api/v1/clusters/${encodeURIComponent(id)}/heartbeats?minutes=360`, { signal }),
    refetchInterval: (q) => (q.state.error ? false : TIMELINE_REFRESH_MS),
  });
}

export function useFleet() {
  // Fleet facts change only when an admin edits settings: the default stale time is plenty.
  return useQuery({ queryKey: clusterKeys.fleet, queryFn: ({ signal }) => fetchJson<FleetFacts>("/api/v1/fleet", { signal }) });
}

export function useGroups() {
  return useQuery({
    queryKey: clusterKeys.groups,
    queryFn: ({ signal }) => fetchJson<{ items: ClusterGroupSummary[] }>("/api/v1/groups", { signal }),
    staleTime: 60_000,
  });
}

/**
 * Replaces a cluster's labels. The cached detail shows the new labels at once and goes back to
 * the server's copy if the server refuses (the caller shows the server's message).
 */
export function useUpdateLabels(id: string) {
  const client = useQueryClient();
  const key = clusterKeys.detail(id);
  return useMutation({
    mutationFn: (labels: Labels) =>
      fetchJson<ClusterDetail>(`/api/v1/clusters/${encodeURIComponent(id)}`, { method: "PATCH", body: { labels } }),
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
      void client.invalidateQueries({ queryKey: clusterKeys.lists });
      void client.invalidateQueries({ queryKey: clusterKeys.overview });
      void client.invalidateQueries({ queryKey: queryKeys.auditAll });
    },
  });
}

export function useRevokeCertificate(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (reason: string) =>
      fetchJson<{ revoked: string[] }>(`/api/v1/clusters/${encodeURIComponent(id)}/certificate/revoke`, {
        method: "POST",
        body: { reason },
      }),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: clusterKeys.detail(id) });
      void client.invalidateQueries({ queryKey: clusterKeys.overview });
      void client.invalidateQueries({ queryKey: queryKeys.auditAll });
    },
  });
}

/** POST /api/v1/clusters's answer: the pre-created cluster and, once only, the token that claims it. */
export type PreCreated = ClusterDetail & { registrationToken: MintedToken };

/**
 * Pre-creates a cluster (phase Provisioning). The answer holds the claim token's secret: the
 * finished mutation is dropped as soon as nothing shows it (as with minting a token).
 */
export function usePreCreateCluster() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; labels: Labels; description?: string }) =>
      fetchJson<PreCreated>("/api/v1/clusters", { method: "POST", body: input }),
    gcTime: 0,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: clusterKeys.lists });
      void client.invalidateQueries({ queryKey: clusterKeys.overview });
      void client.invalidateQueries({ queryKey: tokenKeys.all });
    },
  });
}
