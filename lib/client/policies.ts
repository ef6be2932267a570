"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { policyRoutes, type PolicyContent, type PolicyInput, type PolicyPatch } from "@/lib/contracts/policies";
import { routeUrl } from "@/lib/contracts/route";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Policies page.

export type { Policy, PolicyContent, PolicyInput, PolicyPatch } from "@/lib/contracts/policies";

export function usePolicies() {
  return useQuery({
    queryKey: queryKeys.policies.list,
    queryFn: ({ signal }) => fetchJson(policyRoutes.list.path, { signal, schema: policyRoutes.list.response }),
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

export function useCreatePolicy() {
  return usePolicyMutation((input: PolicyInput) =>
    fetchJson(policyRoutes.create.path, { method: "POST", body: input, schema: policyRoutes.create.response }),
  );
}

export function useUpdatePolicy() {
  return usePolicyMutation(({ id, patch }: { id: string; patch: PolicyPatch }) =>
    fetchJson(routeUrl(policyRoutes.update, { id }), { method: "PATCH", body: patch, schema: policyRoutes.update.response }),
  );
}

export function usePublishRevision() {
  return usePolicyMutation(({ id, content }: { id: string; content: PolicyContent }) =>
    fetchJson(routeUrl(policyRoutes.addRevision, { id }), {
      method: "POST",
      body: { content },
      schema: policyRoutes.addRevision.response,
    }),
  );
}

export function useDeletePolicy() {
  return usePolicyMutation((id: string) => fetchJson<void>(routeUrl(policyRoutes.delete, { id }), { method: "DELETE" }));
}
