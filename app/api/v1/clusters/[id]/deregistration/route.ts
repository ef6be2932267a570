import { deregistrationRoutes } from "@/lib/contracts/deregistration";
import { adminRoute } from "@/lib/server/api/admin-route";
import { actOnDeregistration, getDeregistration } from "@/lib/server/lifecycle/deregistration";

export const GET = adminRoute(deregistrationRoutes.get, async ({ params }) => getDeregistration(params.id));

export const POST = adminRoute(deregistrationRoutes.act, async ({ principal, params, body }) =>
  actOnDeregistration(principal.actor, params.id, body),
);
