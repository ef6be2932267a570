"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CreateRolloutInput } from "@/lib/domain/rollouts";
import { clusterRoutes } from "@/lib/contracts/clusters";
import { routeUrl } from "@/lib/contracts/route";
import { rolloutRoutes, type RolloutActionInput, type RolloutPlan } from "@/lib/contracts/rollouts";
import type { RolloutState } from "@/lib/domain/rollouts";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Rollouts pages.

/**
 * A running rollout moves every engine tick (2 s) as agents report; polling at the same pace
 * shows each cluster's state change promptly. Paused rollouts (and those awaiting approval) change
 * only when someone acts (15 s is enough to notice); finished ones never change.
 */
export const ROLLOUT_RUNNING_POLL_MS = 2_000;
const ROLLOUT_IDLE_POLL_MS = 15_000;

export type { Rollout, RolloutPlan, RolloutStage } from "@/lib/contracts/rollouts";
export type { RolloutState, MemberState as RolloutClusterState } from "@/lib/domain/rollouts";

function rolloutPoll(states: RolloutState[]): number | false {
  if (states.includes("Running")) return ROLLOUT_RUNNING_POLL_MS;
  if (states.includes("Paused") || states.includes("AwaitingApproval")) return ROLLOUT_IDLE_POLL_MS;
  return false;
}

export function useRollouts() {
  return useQuery({
    queryKey: queryKeys.rollouts.list,
    queryFn: ({ signal }) => fetchJson(rolloutRoutes.list.path, { signal, schema: rolloutRoutes.list.response }),
    select: (data) => data.items,
    // A new rollout started elsewhere is noticed at the idle pace even when nothing runs here.
    refetchInterval: (q) => rolloutPoll(q.state.data?.items.map((r) => r.state) ?? []) || ROLLOUT_IDLE_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useRollout(id: string) {
  return useQuery({
    queryKey: queryKeys.rollouts.detail(id),
    queryFn: ({ signal }) => fetchJson(routeUrl(rolloutRoutes.get, { id }), { signal, schema: rolloutRoutes.get.response }),
    refetchInterval: (q) => (q.state.data ? rolloutPoll([q.state.data.state]) : false),
    refetchIntervalInBackground: false,
  });
}

export function useCreateRollout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateRolloutInput) =>
      fetchJson(rolloutRoutes.create.path, { method: "POST", body: input, schema: rolloutRoutes.create.response }),
    onSuccess: (rollout) => {
      client.setQueryData(queryKeys.rollouts.detail(rollout.id), rollout);
      void client.invalidateQueries({ queryKey: queryKeys.rollouts.list });
    },
  });
}

/** What a rollout would do now (stages, skipped clusters): the numbers the start confirmation shows. */
export function usePlanRollout() {
  return useMutation({
    mutationFn: (input: CreateRolloutInput) =>
      fetchJson(rolloutRoutes.plan.path, { method: "POST", body: input, schema: rolloutRoutes.plan.response }),
  });
}

/**
 * The server's plan of the form's draft as it is typed, so the form counts what the confirmation
 * will (null: the draft is not complete yet). Keeps the previous plan while the next loads.
 */
export function usePlanPreview(input: CreateRolloutInput | null) {
  const key = input ? JSON.stringify(input) : "";
  return useQuery<{ plan: RolloutPlan; input: CreateRolloutInput }>({
    queryKey: queryKeys.rollouts.planPreview(key),
    // The input travels with its plan: while the next loads, the previous plan is shown with its own numbers.
    queryFn: ({ signal }) =>
      fetchJson(rolloutRoutes.plan.path, { method: "POST", body: input, signal, schema: rolloutRoutes.plan.response }).then(
        (plan) => ({ plan, input: input! }),
      ),
    enabled: input !== null,
    placeholderData: keepPreviousData,
    // A plan is a snapshot of health and versions: a few seconds old is still what the operator means.
    staleTime: 5_000,
    retry: false,
  });
}

export function useRolloutAction(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RolloutActionInput) =>
      fetchJson(routeUrl(rolloutRoutes.act, { id }), { method: "POST", body, schema: rolloutRoutes.act.response }),
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
