import { registrationRequestRoutes } from "@/lib/contracts/registration-requests";
import { adminRoute } from "@/lib/server/api/admin-route";
import { decideRequests } from "@/lib/server/registration-requests/decide-request";

export const POST = adminRoute(registrationRequestRoutes.decide, async ({ principal, body, scope }) =>
  decideRequests(principal.actor, body, scope),
);
