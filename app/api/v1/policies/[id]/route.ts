import { updatePolicySchema } from "@/lib/domain/policies";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { deletePolicy, getPolicy, updatePolicy } from "@/lib/server/policies/policies";

export const GET = adminRoute<{ id: string }>("viewer", async ({ params }) => Response.json(await getPolicy(params.id)));

export const PATCH = adminRoute<{ id: string }>("operator", async ({ req, principal, params }) =>
  Response.json(await updatePolicy(principal.actor, params.id, parseWith(updatePolicySchema, await readJson(req)))),
);

export const DELETE = adminRoute<{ id: string }>("operator", async ({ principal, params }) => {
  await deletePolicy(principal.actor, params.id);
  return new Response(null, { status: 204 });
});
