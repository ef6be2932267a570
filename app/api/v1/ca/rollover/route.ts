import { settingsRoutes } from "@/lib/contracts/settings";
import { adminRoute } from "@/lib/server/api/admin-route";
import { startCaRollover } from "@/lib/server/pki/ca-rollover";

/** Starts a fleet CA rollover: a new CA signs from now on; agents are asked to rotate onto it. */
export const POST = adminRoute(settingsRoutes.caRollover, async ({ principal }) => startCaRollover(principal.actor));
