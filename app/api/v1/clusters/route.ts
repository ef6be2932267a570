import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { provisionCluster } from "@/lib/server/clusters/provision-cluster";

export const GET = adminRoute(clusterRoutes.list, async ({ query, scope }) => listClusters(query, scope));

/** Pre-creates a cluster (phase Provisioning) and the token bound to it that claims it (shown once). */
export const POST = adminRoute(clusterRoutes.provision, async ({ principal, body }) => {
  const { id, registrationToken } = await provisionCluster(principal.actor, body);
  return { ...(await getCluster(id)), registrationToken };
});
