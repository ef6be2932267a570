import { policyRoutes } from "@/lib/contracts/policies";
import { adminRoute } from "@/lib/server/api/admin-route";
import { addRevision } from "@/lib/server/policies/policies";

export const POST = adminRoute(policyRoutes.addRevision, async ({ principal, params, body }) =>
  addRevision(principal.actor, params.id, body),
);
