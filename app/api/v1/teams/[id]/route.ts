import { teamRoutes } from "@/lib/contracts/teams";
import { adminRoute } from "@/lib/server/api/admin-route";
import { deleteTeam, getTeam, updateTeam } from "@/lib/server/teams/teams";

export const GET = adminRoute(teamRoutes.get, async ({ params }) => getTeam(params.id));

export const PATCH = adminRoute(teamRoutes.update, async ({ principal, params, body }) =>
  updateTeam(principal.actor, params.id, body),
);

export const DELETE = adminRoute(teamRoutes.delete, async ({ principal, params, query }) =>
  deleteTeam(principal.actor, params.id, query),
);
