import { webhookRoutes } from "@/lib/contracts/webhooks";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createWebhook, listWebhooks } from "@/lib/server/webhooks/subscriptions";

export const GET = adminRoute(webhookRoutes.list, async () => ({ items: await listWebhooks() }));

export const POST = adminRoute(webhookRoutes.create, async ({ principal, body }) => createWebhook(principal.actor, body));
