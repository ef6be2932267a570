import { webhookRoutes } from "@/lib/contracts/webhooks";
import { adminRoute } from "@/lib/server/api/admin-route";
import { listDeliveries } from "@/lib/server/webhooks/subscriptions";

export const GET = adminRoute(webhookRoutes.deliveries, async ({ params, query }) => ({
  items: await listDeliveries(params.id, query.limit, query.state),
}));
