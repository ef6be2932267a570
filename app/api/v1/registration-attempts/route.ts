import { tokenRoutes } from "@/lib/contracts/tokens";
import { adminRoute } from "@/lib/server/api/admin-route";
import { listAttempts, tokensOfTeams } from "@/lib/server/registration/registration-attempts";
import { teamsInReach } from "@/lib/server/teams/acting-team";

export const GET = adminRoute(tokenRoutes.attempts, async ({ principal, query, scope }) => {
  const teams = teamsInReach(principal, scope, tokenRoutes.attempts.role);
  return listAttempts(query, teams && (await tokensOfTeams(teams)));
});
