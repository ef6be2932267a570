import { settingsRoutes } from "@/lib/contracts/settings";
import { adminRoute } from "@/lib/server/api/admin-route";
import { retireOldCa } from "@/lib/server/pki/ca-rollover";

/** Retires the old fleet CA once no current certificate chains to it (409 before). */
export const POST = adminRoute(settingsRoutes.caRetire, async ({ principal }) => retireOldCa(principal.actor));
