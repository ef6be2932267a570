import { meRoutes } from "@/lib/contracts/me";
import { adminRoute } from "@/lib/server/api/admin-route";
import { explainAccess } from "@/lib/server/auth/explain-access";

/** The caller's own access, and why. */
export const GET = adminRoute(meRoutes.access, async ({ principal }) => explainAccess(principal));
