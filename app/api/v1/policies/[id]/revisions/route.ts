import { newRevisionSchema } from "@/lib/domain/policies";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { addRevision } from "@/lib/server/policies/policies";

export const POST = adminRoute<{ id: string }>("operator", async ({ req, principal, params }) =>
  Response.json(await addRevision(principal.actor, params.id, parseWith(newRevisionSchema, await readJson(req))), {
    status: 201,
  }),
);
