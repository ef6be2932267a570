import { registrationRequestRoutes } from "@/lib/contracts/registration-requests";
import { adminRoute } from "@/lib/server/api/admin-route";
import { listRequests } from "@/lib/server/registration-requests/list-requests";

export const GET = adminRoute(registrationRequestRoutes.list, async ({ query, scope }) => listRequests(query, scope));
