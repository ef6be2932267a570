import { teamRoutes } from "@/lib/contracts/teams";
import { adminRoute } from "@/lib/server/api/admin-route";
import { removeTeamMember, updateTeamMember } from "@/lib/server/teams/teams";

export const PATCH = adminRoute(teamRoutes.updateMember, async ({ principal, params, body }) =>
  updateTeamMember(principal.actor, params.id, params.memberId, body),
);

export const DELETE = adminRoute(teamRoutes.removeMember, async ({ principal, params }) =>
  removeTeamMember(principal.actor, params.id, params.memberId),
);
