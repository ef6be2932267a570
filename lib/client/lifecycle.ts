"use client";

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { DeregistrationAction, DeregistrationStep } from "@/lib/domain/deregistration";
import { fetchJson } from "./fetch-json";

// Data hooks and query keys of the lifecycle pages: the drain-then-deregister wizard and policies.

export const lifecycleKeys = {
  deregistration: (clusterId: string) => ["deregistration", clusterId] as const,
  policies: ["policies"] as const,
  policyList: ["policies", "list"] as const,
  /** Pages that show a cluster (detail, lists) go stale when the wizard moves it. */
  clusters: ["clusters"] as const,
  overview: ["overview"] as const,
  audit: ["audit"] as const,
};

// ---------------------------------------------------------------------------------------------
// The wizard

export type VerificationCheck = { key: string; label: string; ok: boolean; detail: string };
export type ForcedSkip = { step: string; action: string; by: string; reason: string; at: string };

export type Deregistration = {
  clusterId: string;
  clusterName: string | null;
  step: DeregistrationStep | null;
  startedAt: string | null;
  startedBy: string | null;
  stepStartedAt: string | null;
  waitingFor: string | null;
  workloads: { pods: number | null; atStart: number | null };
  disconnect: {
    directiveId: string;
    sentAt: string;
    acknowledged: boolean;
    acknowledgedAt: string | null;
    /** Set when the agent acknowledged the disconnect as failed, with its reason. */
    failedReason?: string | null;
    timeoutSeconds: number;
  } | null;
  forced: ForcedSkip[];
  verification: { checkedAt: string; passed: boolean; checks: VerificationCheck[] } | null;
  finishedAt: string | null;
  availableActions: DeregistrationAction[];
};

export type DeregistrationRequest = { action: DeregistrationAction; force?: boolean; reason?: string };

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

export function useDeregistration(clusterId: string, initial: Deregistration) {
  return useQuery({
    queryKey: lifecycleKeys.deregistration(clusterId),
    queryFn: ({ signal }) => fetchJson<Deregistration>(deregistrationUrl(clusterId), { signal }),
    initialData: initial,
    // The server rendered `initial` just now; without this it would be refetched on mount.
    initialDataUpdatedAt: () => Date.now(),
    refetchInterval: (query) => wizardPollInterval(query.state.data?.step),
    // The poll is for the person watching; a hidden tab can catch up when it is shown again.
    refetchIntervalInBackground: false,
  });
}

export function useDeregistrationAction(clusterId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: DeregistrationRequest) =>
      fetchJson<Deregistration>(deregistrationUrl(clusterId), { method: "POST", body }),
    onSuccess: (data) => {
      client.setQueryData(lifecycleKeys.deregistration(clusterId), data);
      void client.invalidateQueries({ queryKey: lifecycleKeys.clusters });
      void client.invalidateQueries({ queryKey: lifecycleKeys.overview });
      void client.invalidateQueries({ queryKey: lifecycleKeys.audit });
    },
  });
}

export type PodSample = { t: number; pods: number };
const MAX_POD_SAMPLES = 600; // 20 minutes at the 2 s poll; older points add nothing to the picture

/**
 * The agent-reported pod count over time, collected while the page is open (the server keeps
 * only the latest report). A sample is taken per fetch, so the line steps when reports land.
 */
export function usePodSamples(pods: number | null, updatedAt: number): PodSample[] {
  const [samples, setSamples] = useState<PodSample[]>(() => (pods === null ? [] : [{ t: updatedAt, pods }]));
  const [seen, setSeen] = useState(updatedAt);
  // Derived state updated during render (not in an effect), so the chart never lags a frame.
  if (updatedAt !== seen) {
    setSeen(updatedAt);
    if (pods !== null) setSamples((s) => [...s, { t: updatedAt, pods }].slice(-MAX_POD_SAMPLES));
  }
  return samples;
}

// ---------------------------------------------------------------------------------------------
// Policies

export type PolicyContent = Record<string, unknown>;
export type Policy = {
  id: string;
  name: string;
  description: string | null;
  revision: number | null;
  content: PolicyContent | null;
  revisions: { revision: number; createdAt: string }[];
  /** `selectorError`: the group's stored selector is invalid, so the policy reaches none of it */
  groups: { id: string; name: string; selectorError: string | null }[];
  createdAt: string;
  updatedAt: string;
};
export type PolicyInput = { name: string; description?: string; groupIds: string[]; content: PolicyContent };
export type PolicyPatch = { description?: string | null; groupIds?: string[] };

export function usePolicies() {
  return useQuery({
    queryKey: lifecycleKeys.policyList,
    queryFn: ({ signal }) => fetchJson<{ items: Policy[] }>("/api/v1/policies", { signal }),
    select: (data) => data.items,
  });
}

function usePolicyMutation<V>(fn: (v: V) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: lifecycleKeys.policies });
      // Desired revisions of clusters follow from policies.
      void client.invalidateQueries({ queryKey: lifecycleKeys.clusters });
    },
  });
}

const policyUrl = (id: string) => `/api/v1/policies/${encodeURIComponent(id)}`;

export function useCreatePolicy() {
  return usePolicyMutation((input: PolicyInput) => fetchJson<Policy>("/api/v1/policies", { method: "POST", body: input }));
}

export function useUpdatePolicy() {
  return usePolicyMutation(({ id, patch }: { id: string; patch: PolicyPatch }) =>
    fetchJson<Policy>(policyUrl(id), { method: "PATCH", body: patch }),
  );
}

export function usePublishRevision() {
  return usePolicyMutation(({ id, content }: { id: string; content: PolicyContent }) =>
    fetchJson<Policy>(`${policyUrl(id)}/revisions`, { method: "POST", body: { content } }),
  );
}

export function useDeletePolicy() {
  return usePolicyMutation((id: string) => fetchJson<void>(policyUrl(id), { method: "DELETE" }));
}
