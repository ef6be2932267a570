import { fleetRoutes } from "@/lib/contracts/fleet";
import { adminRoute } from "@/lib/server/api/admin-route";
import { overview } from "@/lib/server/fleet/overview";

export const GET = adminRoute(fleetRoutes.overview, async () => overview());
