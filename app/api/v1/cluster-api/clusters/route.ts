import { clusterApiRoutes } from "@/lib/contracts/cluster-api";
import { adminRoute } from "@/lib/server/api/admin-route";
import { listCapiClusters } from "@/lib/server/cluster-api/capi-clusters";

export const GET = adminRoute(clusterApiRoutes.listClusters, async ({ query }) => listCapiClusters(query));
