import { adminRoute } from "@/lib/server/api/admin-route";
import { readJson } from "@/lib/server/api/read-body";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { updateCluster } from "@/lib/server/clusters/update-cluster";

export const GET = adminRoute<{ id: string }>("viewer", async ({ params }) => Response.json(await getCluster(params.id)));

export const PATCH = adminRoute<{ id: string }>("operator", async ({ req, principal, params }) => {
  await updateCluster(principal.actor, params.id, await readJson(req));
  return Response.json(await getCluster(params.id));
});
