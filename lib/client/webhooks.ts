"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { routeUrl } from "@/lib/contracts/route";
import { webhookRoutes, type WebhookDelivery } from "@/lib/contracts/webhooks";
import type { WebhookCreate, WebhookPatch } from "@/lib/domain/webhooks";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

// Data hooks of the Webhooks page. The secret of a create or rotate answer
// is handed to the caller and never put in the query cache.

export type { Webhook, WebhookDelivery } from "@/lib/contracts/webhooks";

// Deliveries go out within about a second and retry on their own schedule: while a log or the
// list is open, follow them at this pace.
const DELIVERY_POLL_MS = 3_000;

export function useWebhooks() {
  return useQuery({
    queryKey: queryKeys.webhooks.list,
    queryFn: ({ signal }) => fetchJson(webhookRoutes.list.path, { signal, schema: webhookRoutes.list.response }),
    select: (d) => d.items,
    refetchInterval: DELIVERY_POLL_MS,
  });
}

/** A subscription's delivery log, newest first; `state`: only the deliveries in it. */
export function useWebhookDeliveries(id: string, state?: WebhookDelivery["state"]) {
  return useQuery({
    queryKey: queryKeys.webhooks.deliveries(id, state),
    queryFn: ({ signal }) =>
      fetchJson(routeUrl(webhookRoutes.deliveries, { id }, { limit: "50", ...(state ? { state } : {}) }), {
        signal,
        schema: webhookRoutes.deliveries.response,
      }),
    select: (d) => d.items,
    refetchInterval: DELIVERY_POLL_MS,
  });
}

function useWebhookMutation<I, O>(fn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.webhooks.all });
      void client.invalidateQueries({ queryKey: queryKeys.audit.all });
    },
  });
}

export const useCreateWebhook = () =>
  useWebhookMutation((input: WebhookCreate) =>
    fetchJson(webhookRoutes.create.path, { method: "POST", body: input, schema: webhookRoutes.create.response }),
  );

export const useUpdateWebhook = () =>
  useWebhookMutation(({ id, patch }: { id: string; patch: WebhookPatch }) =>
    fetchJson(routeUrl(webhookRoutes.update, { id }), { method: "PATCH", body: patch, schema: webhookRoutes.update.response }),
  );

export const useDeleteWebhook = () =>
  useWebhookMutation((id: string) => fetchJson(routeUrl(webhookRoutes.remove, { id }), { method: "DELETE" }));

export const useTestWebhook = () =>
  useWebhookMutation((id: string) =>
    fetchJson(routeUrl(webhookRoutes.test, { id }), { method: "POST", body: {}, schema: webhookRoutes.test.response }),
  );
