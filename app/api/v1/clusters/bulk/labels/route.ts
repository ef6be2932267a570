import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { bulkLabelClusters } from "@/lib/server/clusters/bulk-label-clusters";

export const POST = adminRoute(clusterRoutes.bulkLabels, async ({ principal, body, scope }) =>
  bulkLabelClusters(principal.actor, body, scope),
);
