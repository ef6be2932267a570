import { webhookRoutes } from "@/lib/contracts/webhooks";
import { adminRoute } from "@/lib/server/api/admin-route";
import { rotateWebhookSecret } from "@/lib/server/webhooks/subscriptions";

export const POST = adminRoute(webhookRoutes.rotateSecret, async ({ principal, params }) =>
  rotateWebhookSecret(principal.actor, params.id),
);
