import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { getClusterFor } from "@/lib/server/clusters/get-cluster";
import { retireNodePool } from "@/lib/server/node-pools/node-pools";

export const POST = adminRoute(clusterRoutes.retireNodePool, async ({ principal, params, body }) => {
  await retireNodePool(principal.actor, params.id, decodeURIComponent(params.pool), body);
  return getClusterFor(principal, params.id);
});
