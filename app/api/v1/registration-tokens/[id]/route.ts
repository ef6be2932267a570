import { tokenRoutes } from "@/lib/contracts/tokens";
import { adminRoute } from "@/lib/server/api/admin-route";
import { revokeToken } from "@/lib/server/tokens/list-tokens";

export const DELETE = adminRoute(tokenRoutes.revoke, async ({ principal, params }) => revokeToken(principal.actor, params.id));
