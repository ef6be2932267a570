import { tokenRoutes } from "@/lib/contracts/tokens";
import { adminRoute } from "@/lib/server/api/admin-route";
import { summarizeRefusals } from "@/lib/server/registration/registration-attempts";

export const GET = adminRoute(tokenRoutes.refusals, async () => summarizeRefusals());
