import { webhookRoutes } from "@/lib/contracts/webhooks";
import { adminRoute } from "@/lib/server/api/admin-route";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/server/webhooks/subscriptions";

export const GET = adminRoute(webhookRoutes.get, async ({ params }) => getWebhook(params.id));

export const PATCH = adminRoute(webhookRoutes.update, async ({ principal, params, body }) =>
  updateWebhook(principal.actor, params.id, body),
);

export const DELETE = adminRoute(webhookRoutes.remove, async ({ principal, params }) =>
  deleteWebhook(principal.actor, params.id),
);
