import { clusterProfileRoutes } from "@/lib/contracts/cluster-profiles";
import { adminRoute } from "@/lib/server/api/admin-route";
import { listClusterProfiles } from "@/lib/server/cluster-profiles/list-cluster-profiles";

export const GET = adminRoute(clusterProfileRoutes.list, async ({ query }) => listClusterProfiles(query));
