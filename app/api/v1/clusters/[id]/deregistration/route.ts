import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith, readJson } from "@/lib/server/api/read-body";
import { actOnDeregistration, deregistrationActionSchema, getDeregistration } from "@/lib/server/lifecycle/deregistration";

export const GET = adminRoute<{ id: string }>("viewer", async ({ params }) => Response.json(await getDeregistration(params.id)));

export const POST = adminRoute<{ id: string }>("operator", async ({ req, principal, params }) =>
  Response.json(
    await actOnDeregistration(principal.actor, params.id, parseWith(deregistrationActionSchema, await readJson(req))),
  ),
);
