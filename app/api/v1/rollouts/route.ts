import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { adminRoute } from "@/lib/server/api/admin-route";
import { db } from "@/lib/server/db/client";
import { createRollout } from "@/lib/server/rollouts/create-rollout";
import { listRollouts } from "@/lib/server/rollouts/list-rollouts";
import { rolloutOwner } from "@/lib/server/rollouts/rollout-team";
import { teamsInReach } from "@/lib/server/teams/acting-team";

// A fleet role lists every rollout; a team member, their teams' only.
export const GET = adminRoute(rolloutRoutes.list, async ({ principal, scope }) => ({
  items: await listRollouts(db(), teamsInReach(principal, scope, rolloutRoutes.list.role)),
}));

export const POST = adminRoute(rolloutRoutes.create, async ({ principal, body }) => {
  const { actor, team } = await rolloutOwner(principal, body.team, rolloutRoutes.create);
  return createRollout(actor, body, team);
});
