import { tokenRoutes } from "@/lib/contracts/tokens";
import { adminRoute } from "@/lib/server/api/admin-route";
import { listAttempts } from "@/lib/server/registration/registration-attempts";

export const GET = adminRoute(tokenRoutes.attempts, async ({ query }) => listAttempts(query));
