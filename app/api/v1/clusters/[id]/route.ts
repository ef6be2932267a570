import { adminRoute } from "@/lib/server/api/admin-route";
import { getCluster } from "@/lib/server/clusters/get-cluster";

export const GET = adminRoute<{ id: string }>("viewer", async ({ params }) => Response.json(await getCluster(params.id)));
