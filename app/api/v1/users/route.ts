import { createUserSchema } from "@/lib/domain/users";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { createUser, listUsers } from "@/lib/server/users/users";

export const GET = adminRoute("admin", async () => Response.json({ items: await listUsers() }));

export const POST = adminRoute("admin", async ({ req, principal }) => {
  const input = parseWith(createUserSchema, await readJson(req));
  return Response.json(await createUser(principal.actor, input), { status: 201 });
});
