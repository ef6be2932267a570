import { fleetRoutes } from "@/lib/contracts/fleet";
import { adminRoute } from "@/lib/server/api/admin-route";
import { capacity } from "@/lib/server/node-pools/node-pools";

/** Node pool capacity, grouped by a label: the fleet's, or a team member's clusters'. */
export const GET = adminRoute(fleetRoutes.capacity, async ({ query, scope }) => capacity(query.by, scope));
