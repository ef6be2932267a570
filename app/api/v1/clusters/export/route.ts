import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { exportClusters } from "@/lib/server/clusters/export-clusters";

export const GET = adminRoute(clusterRoutes.export, async ({ query, scope }) => exportClusters(query, scope));
