import { userRoutes } from "@/lib/contracts/users";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createUser, listUsers } from "@/lib/server/users/users";

export const GET = adminRoute(userRoutes.list, async () => ({ items: await listUsers() }));

export const POST = adminRoute(userRoutes.create, async ({ principal, body }) => createUser(principal.actor, body));
