import { z } from "zod";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { retireNodePool } from "@/lib/server/node-pools/node-pools";

const body = z.object({ reason: z.string().trim().max(300).optional() }).strict();

export const POST = adminRoute<{ id: string; pool: string }>("operator", async ({ req, principal, params }) => {
  // The body is optional: an empty one means "no reason given"; anything else must be valid.
  const hasBody = Number(req.headers.get("content-length") ?? "0") > 0 || req.headers.has("transfer-encoding");
  const { reason } = parseWith(body, hasBody ? await readJson(req) : {});
  await retireNodePool(principal.actor, params.id, decodeURIComponent(params.pool), reason ?? null);
  return Response.json(await getCluster(params.id));
});
