import { registrationRequestRoutes } from "@/lib/contracts/registration-requests";
import { adminRoute } from "@/lib/server/api/admin-route";
import { getRequest } from "@/lib/server/registration-requests/list-requests";

export const GET = adminRoute(registrationRequestRoutes.get, async ({ params, scope }) => getRequest(params.id, scope));
