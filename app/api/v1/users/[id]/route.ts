import { userRoutes } from "@/lib/contracts/users";
import { adminRoute } from "@/lib/server/api/admin-route";
import { updateUser } from "@/lib/server/users/users";

export const PATCH = adminRoute(userRoutes.update, async ({ principal, params, body }) =>
  updateUser(principal.actor, params.id, body),
);
