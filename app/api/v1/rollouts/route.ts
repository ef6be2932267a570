import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createRollout } from "@/lib/server/rollouts/create-rollout";
import { listRollouts } from "@/lib/server/rollouts/list-rollouts";

export const GET = adminRoute(rolloutRoutes.list, async () => ({ items: await listRollouts() }));

export const POST = adminRoute(rolloutRoutes.create, async ({ principal, body }) => createRollout(principal.actor, body));
