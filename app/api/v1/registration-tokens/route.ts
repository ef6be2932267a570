import { tokenRoutes } from "@/lib/contracts/tokens";
import { adminRoute } from "@/lib/server/api/admin-route";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { listTokens } from "@/lib/server/tokens/list-tokens";
import { actingTeam, actorFor, teamsInReach } from "@/lib/server/teams/acting-team";

export const GET = adminRoute(tokenRoutes.list, async ({ principal, scope }) => ({
  items: await listTokens(teamsInReach(principal, scope, tokenRoutes.list.role)),
}));

// The token is in this answer only: the contract marks it no-store.
export const POST = adminRoute(tokenRoutes.mint, async ({ principal, body }) => {
  const { team, ...input } = body;
  const forTeam = await actingTeam(principal, team, tokenRoutes.mint);
  return mintToken(actorFor(principal, forTeam, tokenRoutes.mint), input, forTeam);
});
