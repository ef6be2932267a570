import { userRoutes } from "@/lib/contracts/users";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createPasswordLink } from "@/lib/server/users/password-links";

export const POST = adminRoute(userRoutes.passwordLink, async ({ principal, params }) =>
  createPasswordLink(principal.actor, params.id),
);
