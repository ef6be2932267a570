import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { deleteSavedView } from "@/lib/server/clusters/saved-views";

export const DELETE = adminRoute(clusterRoutes.deleteView, async ({ principal, params }) => {
  await deleteSavedView(principal.actor, params.id);
});
