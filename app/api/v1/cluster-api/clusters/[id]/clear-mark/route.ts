import { clusterApiRoutes } from "@/lib/contracts/cluster-api";
import { adminRoute } from "@/lib/server/api/admin-route";
import { clearCapiMark } from "@/lib/server/cluster-api/capi-clusters";

export const POST = adminRoute(clusterApiRoutes.clearMark, async ({ principal, params }) =>
  clearCapiMark(principal.actor, params.id),
);
