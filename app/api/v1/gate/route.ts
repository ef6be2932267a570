import { fleetRoutes } from "@/lib/contracts/fleet";
import { adminRoute } from "@/lib/server/api/admin-route";
import { evaluateGate } from "@/lib/server/gate/evaluate-gate";

export const GET = adminRoute(fleetRoutes.gate, async ({ query, scope }) => evaluateGate(query, new Date(), scope));
