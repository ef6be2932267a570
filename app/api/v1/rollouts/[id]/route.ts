import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { adminRoute } from "@/lib/server/api/admin-route";
import { getRollout } from "@/lib/server/rollouts/get-rollout";

export const GET = adminRoute(rolloutRoutes.get, async ({ params }) => getRollout(params.id));
