import { createRolloutSchema } from "@/lib/domain/rollouts";
import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { createRollout } from "@/lib/server/rollouts/create-rollout";
import { listRollouts } from "@/lib/server/rollouts/list-rollouts";

export const GET = adminRoute("viewer", async () => Response.json({ items: await listRollouts() }));

export const POST = adminRoute("operator", async ({ req, principal }) =>
  Response.json(await createRollout(principal.actor, parseWith(createRolloutSchema, await readJson(req))), { status: 201 }),
);
