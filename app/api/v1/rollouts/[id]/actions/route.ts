import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { rolloutActionSchema } from "@/lib/domain/rollouts";
import { actOnRollout } from "@/lib/server/rollouts/act-on-rollout";

/** pause, resume or abort. */
export const POST = adminRoute<{ id: string }>("operator", async ({ req, principal, params }) =>
  Response.json(await actOnRollout(principal.actor, params.id, parseWith(rolloutActionSchema, await readJson(req)))),
);
