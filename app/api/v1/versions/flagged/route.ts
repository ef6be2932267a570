import { settingsRoutes } from "@/lib/contracts/settings";
import { adminRoute } from "@/lib/server/api/admin-route";
import { flaggedClusters } from "@/lib/server/versions/compatibility";

export const GET = adminRoute(settingsRoutes.flagged, async ({ query, scope }) => flaggedClusters(query, scope));
