import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createSavedView, listSavedViews } from "@/lib/server/clusters/saved-views";

export const GET = adminRoute(clusterRoutes.listViews, async ({ principal }) => listSavedViews(principal));

export const POST = adminRoute(clusterRoutes.createView, async ({ principal, body }) => createSavedView(principal, body));
