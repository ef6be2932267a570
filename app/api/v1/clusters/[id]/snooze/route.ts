import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { getClusterFor } from "@/lib/server/clusters/get-cluster";
import { snoozeCluster, unsnoozeCluster } from "@/lib/server/clusters/snooze-cluster";

export const POST = adminRoute(clusterRoutes.snooze, async ({ principal, params, body }) => {
  await snoozeCluster(principal.actor, params.id, body);
  return getClusterFor(principal, params.id);
});

export const DELETE = adminRoute(clusterRoutes.unsnooze, async ({ principal, params }) => {
  await unsnoozeCluster(principal.actor, params.id);
  return getClusterFor(principal, params.id);
});
