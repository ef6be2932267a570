import { policyRoutes } from "@/lib/contracts/policies";
import { adminRoute } from "@/lib/server/api/admin-route";
import { createPolicy, listPolicies } from "@/lib/server/policies/policies";

export const GET = adminRoute(policyRoutes.list, async () => ({ items: await listPolicies() }));

export const POST = adminRoute(policyRoutes.create, async ({ principal, body }) => createPolicy(principal.actor, body));
