import { fleetRoutes } from "@/lib/contracts/fleet";
import { adminRoute } from "@/lib/server/api/admin-route";
import { capacity } from "@/lib/server/node-pools/node-pools";

/** Fleet-wide node pool capacity, grouped by a label. */
export const GET = adminRoute(fleetRoutes.capacity, async ({ query }) => capacity(query.by));
