import { settingsRoutes } from "@/lib/contracts/settings";
import { adminRoute } from "@/lib/server/api/admin-route";
import { getMatrix, setMatrix } from "@/lib/server/versions/compatibility";

export const GET = adminRoute(settingsRoutes.compatibility, async () => getMatrix());

export const PUT = adminRoute(settingsRoutes.setCompatibility, async ({ principal, body }) => setMatrix(principal.actor, body));

/** Back to the matrix shipped with this build. */
export const DELETE = adminRoute(settingsRoutes.resetCompatibility, async ({ principal }) => setMatrix(principal.actor, null));
