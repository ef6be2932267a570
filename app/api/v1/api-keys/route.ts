import { createApiKeySchema } from "@/lib/domain/api-keys";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { createApiKey, listApiKeys } from "@/lib/server/api-keys/api-keys";

export const GET = adminRoute("admin", async () => Response.json({ items: await listApiKeys() }));

export const POST = adminRoute("admin", async ({ req, principal }) =>
  Response.json(await createApiKey(principal.actor, parseWith(createApiKeySchema, await readJson(req))), {
    status: 201,
    headers: { "cache-control": "no-store" },
  }),
);
