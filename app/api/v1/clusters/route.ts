import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith } from "@/lib/server/api/read-body";
import { listClusters, listClustersQuerySchema } from "@/lib/server/clusters/list-clusters";

export const GET = adminRoute("viewer", async ({ req }) =>
  Response.json(await listClusters(parseWith(listClustersQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query"))),
);
