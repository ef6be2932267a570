import { z } from "zod";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { revokeClusterCertificates } from "@/lib/server/clusters/update-cluster";

const body = z.object({ reason: z.string().trim().min(3).max(300) }).strict();

export const POST = adminRoute<{ id: string }>("operator", async ({ req, principal, params }) => {
  const { reason } = parseWith(body, await readJson(req));
  return Response.json(await revokeClusterCertificates(principal.actor, params.id, reason));
});
