import { clusterApiRoutes } from "@/lib/contracts/cluster-api";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createSource, listSources } from "@/lib/server/cluster-api/sources";

export const GET = adminRoute(clusterApiRoutes.listSources, async () => listSources());

export const POST = adminRoute(clusterApiRoutes.createSource, async ({ principal, body }) => createSource(principal.actor, body));
