import { groupRoutes } from "@/lib/contracts/groups";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createGroup, listGroups } from "@/lib/server/groups/groups";

export const GET = adminRoute(groupRoutes.list, async () => ({ items: await listGroups() }));

export const POST = adminRoute(groupRoutes.create, async ({ principal, body }) => createGroup(principal.actor, body));
