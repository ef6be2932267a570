"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { routeUrl } from "@/lib/contracts/route";
import {
  registrationRequestRoutes as routes,
  type RegistrationRequestState,
  type RequestDecisions,
} from "@/lib/contracts/registration-requests";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

export type { RegistrationRequest, RegistrationRequestState } from "@/lib/contracts/registration-requests";

/** Which requests a tab of the queue shows: the pending ones, or every decided one. */
export type QueueTab = "pending" | "decided";

// The live stream says when the pending set changes (registration.requests); the poll is what
// keeps the queue current while the stream is down, and refreshes "last asked" as agents repeat.
const QUEUE_REFRESH_MS = 15_000;

/** What narrows the queue besides its tab: a search, a token, a label selector ("" for none). */
export type QueueFilters = { q: string; tokenId: string; selector: string };

function listUrl(query: {
  state?: RegistrationRequestState | "decided";
  q?: string;
  tokenId?: string;
  selector?: string;
  cursor?: string;
  limit?: number;
}) {
  return routeUrl(routes.list, {}, { ...query, limit: query.limit === undefined ? undefined : String(query.limit) });
}

/**
 * The queue: pending requests or the decided ones, newest first, a page at a time ("Show more"
 * fetches the next), narrowed by a search (name, fingerprint, source address, token), a token
 * and a label selector.
 */
export function useRegistrationRequests(tab: QueueTab, { q, tokenId, selector }: QueueFilters) {
  return useInfiniteQuery({
    queryKey: queryKeys.registrationRequests.queue(tab, q, tokenId, selector),
    queryFn: ({ signal, pageParam }) =>
      fetchJson(
        listUrl({
          state: tab,
          q: q || undefined,
          tokenId: tokenId || undefined,
          selector: selector || undefined,
          cursor: pageParam,
        }),
        { signal, schema: routes.list.response },
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    select: (data) => ({
      pending: data.pages[0]?.pending ?? 0,
      items: data.pages.flatMap((p) => p.items),
    }),
    refetchInterval: QUEUE_REFRESH_MS,
  });
}

/** The number of requests waiting for a decision (the nav badge); null while unknown. */
export function usePendingRequestCount(enabled: boolean): number | null {
  const query = useQuery({
    queryKey: queryKeys.registrationRequests.list("pending"),
    queryFn: ({ signal }) => fetchJson(listUrl({ state: "pending", limit: 1 }), { signal, schema: routes.list.response }),
    select: (data) => data.pending,
    refetchInterval: QUEUE_REFRESH_MS,
    enabled,
  });
  return query.data ?? null;
}

function useRefreshQueue() {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: queryKeys.registrationRequests.all });
    // An approval creates a cluster and a denial gives a token its use back.
    void client.invalidateQueries({ queryKey: queryKeys.clusters.lists });
    void client.invalidateQueries({ queryKey: queryKeys.tokens.all });
  };
}

export function useApproveRequest() {
  const refresh = useRefreshQueue();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson(routeUrl(routes.approve, { id }), { method: "POST", body: {}, schema: routes.approve.response }),
    onSettled: refresh,
  });
}

export function useDenyRequest() {
  const refresh = useRefreshQueue();
  return useMutation({
    mutationFn: ({ id, reason }: { id: string; reason: string }) =>
      fetchJson(routeUrl(routes.deny, { id }), { method: "POST", body: { reason }, schema: routes.deny.response }),
    onSettled: refresh,
  });
}

/** Approve or deny a selection: each request succeeds or fails on its own (the answer says which). */
export function useDecideRequests() {
  const refresh = useRefreshQueue();
  return useMutation({
    mutationFn: (decisions: RequestDecisions) =>
      fetchJson(routes.decide.path, { method: "POST", body: decisions, schema: routes.decide.response }),
    onSettled: refresh,
  });
}
