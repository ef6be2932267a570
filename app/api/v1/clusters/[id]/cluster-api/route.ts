import { clusterApiRoutes } from "@/lib/contracts/cluster-api";
import { adminRoute } from "@/lib/server/api/admin-route";
import { capiOriginOf } from "@/lib/server/cluster-api/capi-clusters";

export const GET = adminRoute(clusterApiRoutes.forCluster, async ({ params }) => capiOriginOf(params.id));
