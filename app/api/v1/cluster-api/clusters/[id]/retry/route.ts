import { clusterApiRoutes } from "@/lib/contracts/cluster-api";
import { adminRoute } from "@/lib/server/api/admin-route";
import { retryCapiCluster } from "@/lib/server/cluster-api/capi-clusters";

export const POST = adminRoute(clusterApiRoutes.retryCluster, async ({ principal, params }) =>
  retryCapiCluster(principal.actor, params.id),
);
