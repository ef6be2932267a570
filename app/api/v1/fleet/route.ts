import { tokenRoutes } from "@/lib/contracts/tokens";
import { adminRoute } from "@/lib/server/api/admin-route";
import { fleetFacts } from "@/lib/server/fleet/fleet-facts";

export const GET = adminRoute(tokenRoutes.fleet, async () => fleetFacts());
