import { adminRoute } from "@/lib/server/api/admin-route";
import { revokeToken } from "@/lib/server/tokens/list-tokens";

export const DELETE = adminRoute<{ id: string }>("operator", async ({ principal, params }) =>
  Response.json(await revokeToken(principal.actor, params.id)),
);
