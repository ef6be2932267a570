import { teamRoutes } from "@/lib/contracts/teams";
import { adminRoute } from "@/lib/server/api/admin-route";
import { previewScope } from "@/lib/server/teams/teams";

export const POST = adminRoute(teamRoutes.preview, async ({ body }) => previewScope(body));
