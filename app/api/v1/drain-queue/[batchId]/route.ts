import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { cancelDrainBatch } from "@/lib/server/lifecycle/drain-queue";

export const DELETE = adminRoute(clusterRoutes.cancelDrainBatch, async ({ principal, params, scope }) =>
  cancelDrainBatch(principal.actor, params.batchId, scope),
);
