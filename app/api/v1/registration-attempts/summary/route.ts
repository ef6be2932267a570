import { tokenRoutes } from "@/lib/contracts/tokens";
import { adminRoute } from "@/lib/server/api/admin-route";
import { summarizeRefusals, tokensOfTeams } from "@/lib/server/registration/registration-attempts";
import { teamsInReach } from "@/lib/server/teams/acting-team";

export const GET = adminRoute(tokenRoutes.refusals, async ({ principal, scope }) => {
  const teams = teamsInReach(principal, scope, tokenRoutes.refusals.role);
  return summarizeRefusals(new Date(), teams && (await tokensOfTeams(teams)));
});
