import { mintTokenSchema } from "@/lib/domain/tokens";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { listTokens } from "@/lib/server/tokens/list-tokens";

export const GET = adminRoute("viewer", async () => Response.json({ items: await listTokens() }));

export const POST = adminRoute("operator", async ({ req, principal }) => {
  const input = parseWith(mintTokenSchema, await readJson(req));
  // The token is in this response only; make sure nothing caches it.
  return Response.json(await mintToken(principal.actor, input), { status: 201, headers: { "cache-control": "no-store" } });
});
