import { updateGroupSchema } from "@/lib/domain/groups";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { deleteGroup, getGroup, updateGroup } from "@/lib/server/groups/groups";

export const GET = adminRoute<{ id: string }>("viewer", async ({ params }) => Response.json(await getGroup(params.id)));

export const PATCH = adminRoute<{ id: string }>("operator", async ({ req, principal, params }) =>
  Response.json(await updateGroup(principal.actor, params.id, parseWith(updateGroupSchema, await readJson(req)))),
);

export const DELETE = adminRoute<{ id: string }>("operator", async ({ principal, params }) => {
  await deleteGroup(principal.actor, params.id);
  return new Response(null, { status: 204 });
});
