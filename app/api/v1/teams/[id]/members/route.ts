import { teamRoutes } from "@/lib/contracts/teams";
import { adminRoute } from "@/lib/server/api/admin-route";
import { addTeamMember } from "@/lib/server/teams/teams";

export const POST = adminRoute(teamRoutes.addMember, async ({ principal, params, body }) =>
  addTeamMember(principal.actor, params.id, body),
);
