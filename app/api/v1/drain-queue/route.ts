import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { listDrainQueue } from "@/lib/server/lifecycle/drain-queue";

export const GET = adminRoute(clusterRoutes.drainQueue, async ({ scope }) => listDrainQueue(scope));
