import { labelRoutes } from "@/lib/contracts/labels";
import { adminRoute } from "@/lib/server/api/admin-route";
import { summariseLabels } from "@/lib/server/clusters/label-summary";

export const GET = adminRoute(labelRoutes.list, async ({ scope }) => summariseLabels(scope));
