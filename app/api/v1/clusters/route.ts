import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith } from "@/lib/server/api/read-body";
import { readJson } from "@/lib/server/api/read-body";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { listClusters, listClustersQuerySchema } from "@/lib/server/clusters/list-clusters";
import { provisionCluster, provisionClusterSchema } from "@/lib/server/clusters/provision-cluster";

export const GET = adminRoute("viewer", async ({ req }) =>
  Response.json(await listClusters(parseWith(listClustersQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query"))),
);

/** Pre-creates a cluster (phase Provisioning) and the token bound to it that claims it (shown once). */
export const POST = adminRoute("operator", async ({ req, principal }) => {
  const { id, registrationToken } = await provisionCluster(
    principal.actor,
    parseWith(provisionClusterSchema, await readJson(req)),
  );
  return Response.json(
    { ...(await getCluster(id)), registrationToken },
    { status: 201, headers: { "cache-control": "no-store" } },
  );
});
