import { clusterApiRoutes } from "@/lib/contracts/cluster-api";
import { adminRoute } from "@/lib/server/api/admin-route";
import { deleteSource, updateSource } from "@/lib/server/cluster-api/sources";

export const PATCH = adminRoute(clusterApiRoutes.updateSource, async ({ principal, params, body }) =>
  updateSource(principal.actor, params.id, body),
);

export const DELETE = adminRoute(clusterApiRoutes.deleteSource, async ({ principal, params }) =>
  deleteSource(principal.actor, params.id),
);
