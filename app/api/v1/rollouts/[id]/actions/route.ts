import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { actOnRollout, rolloutActionSchema } from "@/lib/server/rollouts/rollouts";

/** pause, resume or abort. */
export const POST = adminRoute<{ id: string }>("operator", async ({ req, principal, params }) =>
  Response.json(await actOnRollout(principal.actor, params.id, parseWith(rolloutActionSchema, await readJson(req)))),
);
