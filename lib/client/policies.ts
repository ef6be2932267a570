"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Policies page.

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
    queryKey: queryKeys.policies.list,
    queryFn: ({ signal }) => fetchJson<{ items: Policy[] }>("/api/v1/policies", { signal }),
    select: (data) => data.items,
  });
}

function usePolicyMutation<V>(fn: (v: V) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.policies.all });
      // Desired revisions of clusters follow from policies.
      void client.invalidateQueries({ queryKey: queryKeys.clusters.all });
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
