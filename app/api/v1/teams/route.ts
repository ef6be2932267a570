import { teamRoutes } from "@/lib/contracts/teams";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createTeam, listTeams } from "@/lib/server/teams/teams";

export const GET = adminRoute(teamRoutes.list, async ({ principal }) => listTeams(principal));

export const POST = adminRoute(teamRoutes.create, async ({ principal, body }) => createTeam(principal.actor, body));
