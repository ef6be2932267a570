import { tokenRoutes } from "@/lib/contracts/tokens";
import { adminRoute } from "@/lib/server/api/admin-route";
import { mintToken } from "@/lib/server/tokens/mint-token";
import { listTokens } from "@/lib/server/tokens/list-tokens";

export const GET = adminRoute(tokenRoutes.list, async () => ({ items: await listTokens() }));

// The token is in this answer only: the contract marks it no-store.
export const POST = adminRoute(tokenRoutes.mint, async ({ principal, body }) => mintToken(principal.actor, body));
