import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { adminRoute } from "@/lib/server/api/admin-route";
import { planRollout } from "@/lib/server/rollouts/plan-rollout";

export const POST = adminRoute(rolloutRoutes.plan, async ({ body }) => planRollout(body));
