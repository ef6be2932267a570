"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CompatibilityMatrix, VersionFlag } from "@/lib/domain/compatibility";
import type { CreateRolloutInput } from "@/lib/domain/rollouts";
import type { Role } from "@/lib/domain/roles";
import { fetchJson } from "./fetch-json";

// Data hooks and query keys of the fleet operations pages: Versions, Rollouts, Node pools, and the
// API keys and Users sections of Settings.

export const operationsKeys = {
  versions: ["versions"] as const,
  rollouts: ["rollouts"] as const,
  rolloutList: ["rollouts", "list"] as const,
  rollout: (id: string) => ["rollouts", "detail", id] as const,
  nodePools: (by: string) => ["node-pools", by] as const,
  labelKeys: ["node-pools", "label-keys"] as const,
  matchCount: (selector: string) => ["clusters", "match-count", selector] as const,
  apiKeys: ["api-keys"] as const,
  users: ["users"] as const,
  clusters: ["clusters"] as const,
  audit: ["audit"] as const,
};

// ---------------------------------------------------------------------------------------------
// Refresh intervals, each with its reason.

/** Versions change when agents register or upgrade: a minute keeps the page honest cheaply. */
const VERSIONS_REFRESH_MS = 60_000;
/**
 * A running rollout moves every engine tick (2 s) as agents report; polling at the same pace
 * shows each cluster's state change promptly. Paused rollouts change only when someone resumes
 * them (15 s is enough to notice); finished ones never change.
 */
export const ROLLOUT_RUNNING_POLL_MS = 2_000;
const ROLLOUT_IDLE_POLL_MS = 15_000;
/** Capacity moves with heartbeats (pools scale, nodes turn ready): 30 s, like the group counts. */
const CAPACITY_REFRESH_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// Versions

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
    queryKey: operationsKeys.versions,
    queryFn: ({ signal }) => fetchJson<VersionsOverview>("/api/v1/versions", { signal }),
    refetchInterval: VERSIONS_REFRESH_MS,
  });
}

function useMatrixMutation<V>(fn: (v: V) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: operationsKeys.versions });
      void client.invalidateQueries({ queryKey: operationsKeys.audit });
    },
  });
}

export function useSaveMatrix() {
  return useMatrixMutation((matrix: CompatibilityMatrix) => fetchJson("/api/v1/compatibility", { method: "PUT", body: matrix }));
}

export function useResetMatrix() {
  return useMatrixMutation((_: void) => fetchJson("/api/v1/compatibility", { method: "DELETE" }));
}

// ---------------------------------------------------------------------------------------------
// Rollouts

export type RolloutState = "Running" | "Paused" | "Completed" | "Aborted";
export type RolloutClusterState = "Pending" | "Upgrading" | "Succeeded" | "Failed" | "Skipped";
export type RolloutStage = {
  index: number;
  name: string;
  total: number;
  pending: number;
  upgrading: number;
  succeeded: number;
  failed: number;
  skipped: number;
  state: "done" | "current" | "waiting";
};
export type Rollout = {
  id: string;
  name: string;
  targetVersion: string;
  selector: string | null;
  groupId: string | null;
  state: RolloutState;
  pausedReason: string | null;
  currentStage: number;
  maxUnavailable: number;
  waitSeconds: number;
  failureThreshold: number;
  clusterTimeoutSeconds: number;
  stageCompletedAt: string | null;
  createdAt: string;
  finishedAt: string | null;
  totals: { clusters: number; succeeded: number; failed: number; upgrading: number; skipped: number };
  stages: RolloutStage[];
  clusters: {
    clusterId: string;
    name: string | null;
    stage: number;
    state: RolloutClusterState;
    fromVersion: string | null;
    agentVersion: string | null;
    startedAt: string | null;
    finishedAt: string | null;
    error: string | null;
  }[];
};
export type RolloutAction = "pause" | "resume" | "abort";

function rolloutPoll(states: RolloutState[]): number | false {
  if (states.includes("Running")) return ROLLOUT_RUNNING_POLL_MS;
  if (states.includes("Paused")) return ROLLOUT_IDLE_POLL_MS;
  return false;
}

export function useRollouts() {
  return useQuery({
    queryKey: operationsKeys.rolloutList,
    queryFn: ({ signal }) => fetchJson<{ items: Rollout[] }>("/api/v1/rollouts", { signal }),
    select: (data) => data.items,
    // A new rollout started elsewhere is noticed at the idle pace even when nothing runs here.
    refetchInterval: (q) => rolloutPoll(q.state.data?.items.map((r) => r.state) ?? []) || ROLLOUT_IDLE_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useRollout(id: string, initial?: Rollout) {
  return useQuery({
    queryKey: operationsKeys.rollout(id),
    queryFn: ({ signal }) => fetchJson<Rollout>(`/api/v1/rollouts/${encodeURIComponent(id)}`, { signal }),
    initialData: initial,
    initialDataUpdatedAt: initial ? () => Date.now() : undefined,
    refetchInterval: (q) => (q.state.data ? rolloutPoll([q.state.data.state]) : false),
    refetchIntervalInBackground: false,
  });
}

export function useCreateRollout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateRolloutInput) => fetchJson<Rollout>("/api/v1/rollouts", { method: "POST", body: input }),
    onSuccess: (rollout) => {
      client.setQueryData(operationsKeys.rollout(rollout.id), rollout);
      void client.invalidateQueries({ queryKey: operationsKeys.rolloutList });
    },
  });
}

export function useRolloutAction(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { action: RolloutAction; reason?: string }) =>
      fetchJson<Rollout>(`/api/v1/rollouts/${encodeURIComponent(id)}/actions`, { method: "POST", body }),
    onSuccess: (rollout) => {
      client.setQueryData(operationsKeys.rollout(id), rollout);
      void client.invalidateQueries({ queryKey: operationsKeys.rolloutList });
    },
  });
}

/**
 * How many clusters a selector matches right now (the list endpoint's total, one row fetched).
 * `selector` null: nothing to ask yet. Keeps the previous count while the next loads.
 */
export function useMatchCount(selector: string | null) {
  return useQuery<number>({
    queryKey: operationsKeys.matchCount(selector ?? ""),
    queryFn: ({ signal }) =>
      fetchJson<{ total: number }>(`/api/v1/clusters?${new URLSearchParams({ selector: selector ?? "", limit: "1" })}`, {
        signal,
      }).then((d) => d.total),
    enabled: selector !== null,
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
}

// ---------------------------------------------------------------------------------------------
// Node pools

export type Capacity = {
  by: string;
  rows: {
    key: string;
    clusters: number;
    pools: number;
    nodes: number;
    readyNodes: number;
    cpuCores: number;
    memoryGiB: number;
  }[];
  kubeletVersions: { version: string; nodes: number }[];
  instanceTypes: { type: string; nodes: number }[];
  retiring: number;
};

export function useCapacity(by: string) {
  return useQuery({
    queryKey: operationsKeys.nodePools(by),
    queryFn: ({ signal }) => fetchJson<Capacity>(`/api/v1/node-pools?${new URLSearchParams({ by })}`, { signal }),
    refetchInterval: CAPACITY_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}

/** Label keys to group by: the ones on the first few hundred clusters (there is no key index). */
export function useLabelKeys() {
  return useQuery({
    queryKey: operationsKeys.labelKeys,
    queryFn: ({ signal }) =>
      fetchJson<{ items: { labels: Record<string, string> }[] }>("/api/v1/clusters?limit=500", { signal }).then((d) =>
        [...new Set(d.items.flatMap((c) => Object.keys(c.labels)))].sort(),
      ),
    staleTime: 5 * 60_000,
  });
}

// ---------------------------------------------------------------------------------------------
// API keys and users (admin)

/** creator_disabled: its creator is disabled or gone, so the key no longer works. */
export type ApiKeyStatus = "active" | "expired" | "revoked" | "creator_disabled";
export type ApiKey = {
  id: string;
  name: string;
  role: Role;
  /** The lower of its role and its creator's current role; null when the creator is disabled or gone. */
  effectiveRole: Role | null;
  status: ApiKeyStatus;
  createdBy: { id: string; email: string; disabled: boolean } | null;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
};
/** POST's answer: the only place the key itself ever appears (never put in the query cache). */
export type CreatedApiKey = ApiKey & { key: string };
export type ApiKeyInput = { name: string; role: Role; expiresInDays?: number };

export function useApiKeys() {
  return useQuery({
    queryKey: operationsKeys.apiKeys,
    queryFn: ({ signal }) => fetchJson<{ items: ApiKey[] }>("/api/v1/api-keys", { signal }),
    select: (d) => d.items,
  });
}

export function useCreateApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: ApiKeyInput) => fetchJson<CreatedApiKey>("/api/v1/api-keys", { method: "POST", body: input }),
    onSuccess: () => void client.invalidateQueries({ queryKey: operationsKeys.apiKeys }),
  });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<ApiKey>(`/api/v1/api-keys/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: operationsKeys.apiKeys }),
  });
}

export type User = {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  disabled: boolean;
  lastLoginAt: string | null;
  createdAt: string;
};
export type UserInput = { email: string; name?: string; password: string; role: Role };
export type UserPatch = { role?: Role; disabled?: boolean };

export function useUsers() {
  return useQuery({
    queryKey: operationsKeys.users,
    queryFn: ({ signal }) => fetchJson<{ items: User[] }>("/api/v1/users", { signal }),
    select: (d) => d.items,
  });
}

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: UserInput) => fetchJson<User>("/api/v1/users", { method: "POST", body: input }),
    onSuccess: () => void client.invalidateQueries({ queryKey: operationsKeys.users }),
  });
}

export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: UserPatch }) =>
      fetchJson<User>(`/api/v1/users/${encodeURIComponent(id)}`, { method: "PATCH", body: patch }),
    // A user's role and state decide what their API keys can do: refresh both lists.
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: operationsKeys.users });
      void client.invalidateQueries({ queryKey: operationsKeys.apiKeys });
    },
  });
}
