"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { routeUrl } from "@/lib/contracts/route";
import { tokenRoutes, type TokenView } from "@/lib/contracts/tokens";
import type { MintTokenInput } from "@/lib/domain/tokens";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Shapes of the answers: declared once, in lib/contracts.
export type {
  FleetFacts,
  MintedToken,
  RefusalSummary,
  RegistrationAttempt,
  TokenView as RegistrationToken,
} from "@/lib/contracts/tokens";

export type AttemptFilters = { result?: string; tokenId?: string; cursor?: string };
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
    queryFn: ({ signal }) => fetchJson(tokenRoutes.list.path, { signal, schema: tokenRoutes.list.response }),
    select: (data) => data.items,
    refetchInterval: TOKENS_REFRESH_MS,
  });
}

/** The fleet's public facts (agent URL, CA fingerprint, image, required labels); they change rarely. */
export function useFleetFacts() {
  return useQuery({
    queryKey: queryKeys.fleet,
    queryFn: ({ signal }) => fetchJson(tokenRoutes.fleet.path, { signal, schema: tokenRoutes.fleet.response }),
    staleTime: 5 * 60_000,
  });
}

export function useMintToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: MintTokenInput) =>
      fetchJson(tokenRoutes.mint.path, { method: "POST", body: input, schema: tokenRoutes.mint.response }),
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
      fetchJson(routeUrl(tokenRoutes.revoke, { id }), { method: "DELETE", schema: tokenRoutes.revoke.response }),
    onSuccess: (revoked) => {
      client.setQueryData<{ items: TokenView[] }>(queryKeys.tokens.list, (data) =>
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
      fetchJson(`${tokenRoutes.attempts.path}${qs({ ...filters, limit: String(ATTEMPTS_PAGE_SIZE) })}`, {
        signal,
        schema: tokenRoutes.attempts.response,
      }),
    placeholderData: keepPreviousData,
    refetchInterval: ATTEMPTS_REFRESH_MS,
  });
}

/** Refused registrations of the last hour (the attempts log's summary card), at the log's pace. */
export function useRefusalSummary() {
  return useQuery({
    queryKey: queryKeys.attempts.refusals,
    queryFn: ({ signal }) => fetchJson(tokenRoutes.refusals.path, { signal, schema: tokenRoutes.refusals.response }),
    refetchInterval: ATTEMPTS_REFRESH_MS,
  });
}
