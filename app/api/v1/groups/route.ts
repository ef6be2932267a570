import { createGroupSchema } from "@/lib/domain/groups";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { createGroup, listGroups } from "@/lib/server/groups/groups";

export const GET = adminRoute("viewer", async () => Response.json({ items: await listGroups() }));

export const POST = adminRoute("operator", async ({ req, principal }) =>
  Response.json(await createGroup(principal.actor, parseWith(createGroupSchema, await readJson(req))), { status: 201 }),
);
