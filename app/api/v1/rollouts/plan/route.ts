import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { adminRoute } from "@/lib/server/api/admin-route";
import { planRollout } from "@/lib/server/rollouts/plan-rollout";
import { rolloutOwner } from "@/lib/server/rollouts/rollout-team";

export const POST = adminRoute(rolloutRoutes.plan, async ({ principal, body }) =>
  planRollout(body, (await rolloutOwner(principal, body.team, rolloutRoutes.plan)).team),
);
