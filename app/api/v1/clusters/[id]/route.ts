import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { getClusterFor } from "@/lib/server/clusters/get-cluster";
import { assertMutableFields, updateCluster } from "@/lib/server/clusters/update-cluster";

export const GET = adminRoute(clusterRoutes.get, async ({ principal, params }) => getClusterFor(principal, params.id));

export const PATCH = adminRoute(
  clusterRoutes.update,
  async ({ principal, params, body }) => {
    await updateCluster(principal.actor, params.id, body);
    return getClusterFor(principal, params.id);
  },
  // Identity fields are refused with their own code before the body's schema is applied.
  { checkBody: assertMutableFields },
);
