import { userRoutes } from "@/lib/contracts/users";
import { adminRoute } from "@/lib/server/api/admin-route";
import { clearSignInLocks } from "@/lib/server/auth/login-throttle";

export const DELETE = adminRoute(userRoutes.clearSignInLocks, async ({ principal, params }) =>
  clearSignInLocks(principal.actor, params.id),
);
