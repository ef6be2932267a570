import { policyRoutes } from "@/lib/contracts/policies";
import { adminRoute } from "@/lib/server/api/admin-route";
import { deletePolicy, getPolicy, updatePolicy } from "@/lib/server/policies/policies";

export const GET = adminRoute(policyRoutes.get, async ({ params }) => getPolicy(params.id));

export const PATCH = adminRoute(policyRoutes.update, async ({ principal, params, body }) =>
  updatePolicy(principal.actor, params.id, body),
);

export const DELETE = adminRoute(policyRoutes.delete, async ({ principal, params }) => deletePolicy(principal.actor, params.id));
