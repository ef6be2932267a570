import { adminRoute } from "@/lib/server/api/admin-route";
import { revokeApiKey } from "@/lib/server/api-keys/api-keys";

export const DELETE = adminRoute<{ id: string }>("admin", async ({ principal, params }) =>
  Response.json(await revokeApiKey(principal.actor, params.id)),
);
