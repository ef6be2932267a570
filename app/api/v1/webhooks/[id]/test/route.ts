import { webhookRoutes } from "@/lib/contracts/webhooks";
import { adminRoute } from "@/lib/server/api/admin-route";
import { sendTestWebhook } from "@/lib/server/webhooks/subscriptions";

export const POST = adminRoute(webhookRoutes.test, async ({ principal, params }) => sendTestWebhook(principal.actor, params.id));
