"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CreateRolloutInput } from "@/lib/domain/rollouts";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Rollouts pages.

/**
 * A running rollout moves every engine tick (2 s) as agents report; polling at the same pace
 * shows each cluster's state change promptly. Paused rollouts change only when someone resumes
 * them (15 s is enough to notice); finished ones never change.
 */
export const ROLLOUT_RUNNING_POLL_MS = 2_000;
const ROLLOUT_IDLE_POLL_MS = 15_000;

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
    queryKey: queryKeys.rollouts.list,
    queryFn: ({ signal }) => fetchJson<{ items: Rollout[] }>("/api/v1/rollouts", { signal }),
    select: (data) => data.items,
    // A new rollout started elsewhere is noticed at the idle pace even when nothing runs here.
    refetchInterval: (q) => rolloutPoll(q.state.data?.items.map((r) => r.state) ?? []) || ROLLOUT_IDLE_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useRollout(id: string, initial?: Rollout) {
  return useQuery({
    queryKey: queryKeys.rollouts.detail(id),
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
      client.setQueryData(queryKeys.rollouts.detail(rollout.id), rollout);
      void client.invalidateQueries({ queryKey: queryKeys.rollouts.list });
    },
  });
}

export function useRolloutAction(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { action: RolloutAction; reason?: string }) =>
      fetchJson<Rollout>(`/api/v1/rollouts/${encodeURIComponent(id)}/actions`, { method: "POST", body }),
    onSuccess: (rollout) => {
      client.setQueryData(queryKeys.rollouts.detail(id), rollout);
      void client.invalidateQueries({ queryKey: queryKeys.rollouts.list });
    },
  });
}

/**
 * How many clusters a selector matches right now (the list endpoint's total, one row fetched).
 * `selector` null: nothing to ask yet. Keeps the previous count while the next loads.
 */
export function useMatchCount(selector: string | null) {
  return useQuery<number>({
    queryKey: queryKeys.clusters.matchCount(selector ?? ""),
    queryFn: ({ signal }) =>
      fetchJson(`${clusterRoutes.list.path}?${new URLSearchParams({ selector: selector ?? "", limit: "1" })}`, {
        signal,
        schema: clusterRoutes.list.response,
      }).then((d) => d.total),
    enabled: selector !== null,
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
}
