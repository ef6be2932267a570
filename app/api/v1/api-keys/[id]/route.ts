import { apiKeyRoutes } from "@/lib/contracts/users";
import { adminRoute } from "@/lib/server/api/admin-route";
import { revokeApiKey } from "@/lib/server/api-keys/api-keys";

export const DELETE = adminRoute(apiKeyRoutes.revoke, async ({ principal, params }) => revokeApiKey(principal.actor, params.id));
