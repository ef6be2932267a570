import { apiKeyRoutes } from "@/lib/contracts/users";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createApiKey, listApiKeys } from "@/lib/server/api-keys/api-keys";

export const GET = adminRoute(apiKeyRoutes.list, async () => ({ items: await listApiKeys() }));

export const POST = adminRoute(apiKeyRoutes.create, async ({ principal, body }) => createApiKey(principal.actor, body));
