import { fleetRoutes } from "@/lib/contracts/fleet";
import { adminRoute } from "@/lib/server/api/admin-route";
import { overview } from "@/lib/server/fleet/overview";

/** The Overview: the fleet's, or a team member's clusters' (bounded to `scope`, the teams named). */
export const GET = adminRoute(fleetRoutes.overview, async ({ principal, scope }) =>
  overview(
    scope,
    principal.teams.map((g) => g.team),
  ),
);
