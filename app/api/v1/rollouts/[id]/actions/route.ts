import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { adminRoute } from "@/lib/server/api/admin-route";
import { actOnRollout } from "@/lib/server/rollouts/act-on-rollout";

/** pause, resume, abort or approve. */
export const POST = adminRoute(rolloutRoutes.act, async ({ principal, params, body }) =>
  actOnRollout(principal.actor, params.id, body),
);
