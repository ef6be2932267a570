import { registrationRequestRoutes } from "@/lib/contracts/registration-requests";
import { adminRoute } from "@/lib/server/api/admin-route";
import { approveRequest } from "@/lib/server/registration-requests/decide-request";

export const POST = adminRoute(registrationRequestRoutes.approve, async ({ principal, params, scope }) =>
  approveRequest(principal.actor, params.id, scope),
);
