import { groupRoutes } from "@/lib/contracts/groups";
import { adminRoute } from "@/lib/server/api/admin-route";
import { deleteGroup, getGroup, updateGroup } from "@/lib/server/groups/groups";

export const GET = adminRoute(groupRoutes.get, async ({ params }) => getGroup(params.id));

export const PATCH = adminRoute(groupRoutes.update, async ({ principal, params, body }) =>
  updateGroup(principal.actor, params.id, body),
);

export const DELETE = adminRoute(groupRoutes.delete, async ({ principal, params }) => deleteGroup(principal.actor, params.id));
