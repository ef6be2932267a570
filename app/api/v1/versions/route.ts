import { settingsRoutes } from "@/lib/contracts/settings";
import { adminRoute } from "@/lib/server/api/admin-route";
import { versionsOverview } from "@/lib/server/versions/compatibility";

export const GET = adminRoute(settingsRoutes.versions, async ({ scope }) => versionsOverview(scope));
