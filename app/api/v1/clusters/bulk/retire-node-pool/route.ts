import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { bulkRetireNodePool } from "@/lib/server/node-pools/bulk-retire-node-pool";

export const POST = adminRoute(clusterRoutes.bulkRetireNodePool, async ({ principal, body, scope }) =>
  bulkRetireNodePool(principal, body, scope),
);
