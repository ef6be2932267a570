import { registrationRequestRoutes } from "@/lib/contracts/registration-requests";
import { adminRoute } from "@/lib/server/api/admin-route";
import { denyRequest } from "@/lib/server/registration-requests/decide-request";

export const POST = adminRoute(registrationRequestRoutes.deny, async ({ principal, params, body, scope }) =>
  denyRequest(principal.actor, params.id, body.reason, scope),
);
