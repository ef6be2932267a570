import { adminRoute } from "@/lib/server/api/admin-route";
import { getRollout } from "@/lib/server/rollouts/get-rollout";

export const GET = adminRoute<{ id: string }>("viewer", async ({ params }) => Response.json(await getRollout(params.id)));
