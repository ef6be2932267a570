import { rolloutRoutes } from "@/lib/contracts/rollouts";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createRollout, listRollouts } from "@/lib/server/rollouts/rollouts";

export const GET = adminRoute(rolloutRoutes.list, async () => ({ items: await listRollouts() }));

export const POST = adminRoute(rolloutRoutes.create, async ({ principal, body }) => createRollout(principal.actor, body));
