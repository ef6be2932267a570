"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Labels } from "@/lib/domain/labels";
import type { AllowedLabels, MintTokenInput, TokenStatus } from "@/lib/domain/tokens";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

export type RegistrationToken = {
  id: string;
  name: string;
  description: string | null;
  expiresAt: string;
  maxClusters: number;
  usedClusters: number;
  status: TokenStatus;
  allowedLabels: AllowedLabels | null;
  fixedLabels: Labels;
  revokedAt: string | null;
  /** Bound tokens register only this cluster. */
  clusterId: string | null;
  createdAt: string;
};

/** POST's answer: the only place the secret token ever appears. */
export type MintedToken = RegistrationToken & { token: string };

export type FleetFacts = {
  agentUrl: string;
  caFingerprint: string;
  caNotAfter: string;
  agentImage: string;
  notReadyThresholdSeconds: number;
  heartbeatIntervalSeconds: number;
  requiredLabels: string[];
};

export type AttemptFilters = { result?: string; tokenId?: string; cursor?: string };
export type RegistrationAttempt = {
  id: number;
  at: string;
  result: string;
  sourceAddress: string | null;
  tokenId: string | null;
  clusterName: string | null;
  clusterId: string | null;
  message: string | null;
};

export const ATTEMPTS_PAGE_SIZE = 20;
// The attempts log is how someone installing an agent sees why it was refused, usually while
// watching the page: 10 s is quick enough to follow an agent's retries (it backs off from a few
// seconds) without polling a table that only grows when agents register.
const ATTEMPTS_REFRESH_MS = 10_000;
// Use counts change when agents register, and whoever just minted a token is usually watching
// for their cluster to come in: same pace as the attempts log, so the two never disagree long.
const TOKENS_REFRESH_MS = 10_000;

function qs(params: Record<string, string | undefined>) {
  const s = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => !!e[1]));
  return s.size ? `?${s}` : "";
}

export function useTokens() {
  return useQuery({
    queryKey: queryKeys.tokens.list,
    queryFn: ({ signal }) => fetchJson<{ items: RegistrationToken[] }>("/api/v1/registration-tokens", { signal }),
    select: (data) => data.items,
    refetchInterval: TOKENS_REFRESH_MS,
  });
}

/** The fleet's public facts (agent URL, CA fingerprint, image, required labels); they change rarely. */
export function useFleetFacts() {
  return useQuery({
    queryKey: queryKeys.fleet,
    queryFn: ({ signal }) => fetchJson<FleetFacts>("/api/v1/fleet", { signal }),
    staleTime: 5 * 60_000,
  });
}

export function useMintToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: MintTokenInput) => fetchJson<MintedToken>("/api/v1/registration-tokens", { method: "POST", body: input }),
    // The answer holds the secret: drop the finished mutation (and its data) as soon as the panel
    // showing it unmounts, rather than after the default five minutes.
    gcTime: 0,
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.tokens.all }),
  });
}

export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson<RegistrationToken>(`/api/v1/registration-tokens/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: (revoked) => {
      client.setQueryData<{ items: RegistrationToken[] }>(queryKeys.tokens.list, (data) =>
        data ? { items: data.items.map((t) => (t.id === revoked.id ? revoked : t)) } : data,
      );
      void client.invalidateQueries({ queryKey: queryKeys.tokens.all });
    },
  });
}

export function useRegistrationAttempts(filters: AttemptFilters) {
  return useQuery({
    queryKey: queryKeys.attempts.list(filters),
    queryFn: ({ signal }) =>
      fetchJson<{ items: RegistrationAttempt[]; nextCursor: string | null }>(
        `/api/v1/registration-attempts${qs({ ...filters, limit: String(ATTEMPTS_PAGE_SIZE) })}`,
        { signal },
      ),
    placeholderData: keepPreviousData,
    refetchInterval: ATTEMPTS_REFRESH_MS,
  });
}
