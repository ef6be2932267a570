import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { bulkStartDeregistration } from "@/lib/server/lifecycle/bulk-start-deregistration";

export const POST = adminRoute(clusterRoutes.bulkDeregistration, async ({ principal, body, scope }) =>
  bulkStartDeregistration(principal, body, scope),
);
