import { createPolicySchema } from "@/lib/domain/policies";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { createPolicy, listPolicies } from "@/lib/server/policies/policies";

export const GET = adminRoute("viewer", async () => Response.json({ items: await listPolicies() }));

export const POST = adminRoute("operator", async ({ req, principal }) =>
  Response.json(await createPolicy(principal.actor, parseWith(createPolicySchema, await readJson(req))), { status: 201 }),
);
