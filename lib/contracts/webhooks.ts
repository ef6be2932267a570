import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS, webhookCreateSchema, webhookPatchSchema } from "@/lib/domain/webhooks";
import { idName, isoTime, itemsOf } from "./common";
import { route } from "./route";

// Webhook subscriptions (docs/integrations/webhooks.md). The signing secret is in the create and
// rotate answers only; the payload receivers get is WebhookPayload in the OpenAPI document.

export const DELIVERY_STATES = ["pending", "delivered", "failed", "suppressed"] as const;

export const webhookDeliverySchema = z.object({
  id: z.string(),
  eventType: z.enum(WEBHOOK_EVENT_TYPES),
  clusterId: z.string().nullable(),
  /** The cluster the event is about, named as it was then; `removed`: no longer registered. Null: a fleet event. */
  cluster: z.object({ id: z.string(), name: z.string(), removed: z.boolean() }).nullable(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number(),
  createdAt: isoTime,
  nextAttemptAt: isoTime.nullable(),
  lastAttemptAt: isoTime.nullable(),
  /** the receiver's HTTP status; null: no answer (refused, timed out, unreachable) */
  lastStatusCode: z.number().nullable(),
  lastLatencyMs: z.number().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: isoTime.nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  format: z.enum(WEBHOOK_FORMATS),
  enabled: z.boolean(),
  /** The label selector scoping its cluster events; null: every cluster. */
  selector: z.string().nullable(),
  /** Also sent the body-only X-Fleet-Signature, which a captured delivery can be replayed with. */
  legacySignature: z.boolean(),
  createdBy: z.string(),
  createdAt: isoTime,
  updatedAt: isoTime,
  /** The team that owns it (its admins manage it; it hears only of the team's clusters); null: the fleet's. */
  team: idName.nullable(),
  /** the newest delivery's outcome; null: nothing sent yet */
  lastDelivery: webhookDeliverySchema
    .pick({ state: true, lastStatusCode: true, lastAttemptAt: true, eventType: true })
    .nullable(),
});
export type Webhook = z.infer<typeof webhookSchema>;

/** Create and rotate: the secret, shown this once. */
export const webhookWithSecretSchema = webhookSchema.extend({ secret: z.string() });

export const deliveriesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** only the deliveries in this state (the failed ones, say); absent: all */
  state: z.enum(DELIVERY_STATES).optional(),
});

export const webhookRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/webhooks",
    summary:
      "Webhook subscriptions: a fleet admin's, all of them; a team admin's (scope member: whoever is admin in some team, answered with their own), only those of the teams they administer",
    role: "admin",
    scope: "member",
    response: itemsOf(webhookSchema),
  }),
  create: route({
    method: "POST",
    path: "/api/v1/webhooks",
    summary:
      "Subscribe a URL to fleet events, optionally only those of clusters matching a label selector (the signing secret is in this answer only; private targets refused unless allowed). With `team` it is that team's: it hears only of the team's clusters and registration requests, and its admins manage it; a team admin (scope member) makes it for a team they administer (naming it when they have several)",
    role: "admin",
    scope: "member",
    body: webhookCreateSchema,
    response: webhookWithSecretSchema,
    status: 201,
    noStore: true,
  }),
  get: route({
    method: "GET",
    path: "/api/v1/webhooks/{id}",
    summary: "A webhook subscription",
    role: "admin",
    scope: "webhook",
    response: webhookSchema,
  }),
  update: route({
    method: "PATCH",
    path: "/api/v1/webhooks/{id}",
    summary:
      "Change a subscription's URL, events, format, label selector or legacy (replayable) signature header, or enable/disable it",
    role: "admin",
    scope: "webhook",
    body: webhookPatchSchema,
    response: webhookSchema,
  }),
  remove: route({
    method: "DELETE",
    path: "/api/v1/webhooks/{id}",
    summary: "Delete a subscription and its delivery log",
    role: "admin",
    scope: "webhook",
    status: 204,
  }),
  rotateSecret: route({
    method: "POST",
    path: "/api/v1/webhooks/{id}/rotate-secret",
    summary: "Replace the signing secret (the new one is in this answer only)",
    role: "admin",
    scope: "webhook",
    response: webhookWithSecretSchema,
    noStore: true,
  }),
  deliveries: route({
    method: "GET",
    path: "/api/v1/webhooks/{id}/deliveries",
    summary: "The subscription's delivery log, newest first (state, attempts, response code, latency)",
    role: "admin",
    scope: "webhook",
    query: deliveriesQuerySchema,
    response: itemsOf(webhookDeliverySchema),
  }),
  test: route({
    method: "POST",
    path: "/api/v1/webhooks/{id}/test",
    summary: "Queue a webhook.test event to this subscription",
    role: "admin",
    scope: "webhook",
    response: webhookDeliverySchema,
    status: 201,
  }),
};
