import { updateUserSchema } from "@/lib/domain/users";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { updateUser } from "@/lib/server/users/users";

export const PATCH = adminRoute<{ id: string }>("admin", async ({ req, principal, params }) => {
  const input = parseWith(updateUserSchema, await readJson(req));
  return Response.json(await updateUser(principal.actor, params.id, input));
});
