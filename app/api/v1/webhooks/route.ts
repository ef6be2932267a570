import { webhookRoutes } from "@/lib/contracts/webhooks";
import { adminRoute } from "@/lib/server/api/admin-route";
import { owningTeam, teamIdsWithRole } from "@/lib/server/teams/owning-team";
import { createWebhook, listWebhooks } from "@/lib/server/webhooks/subscriptions";

// A fleet admin's answer is unbounded (scope null); a team admin's holds their teams' own.
export const GET = adminRoute(webhookRoutes.list, async ({ principal, scope }) => ({
  items: await listWebhooks(scope ? teamIdsWithRole(principal, "admin") : null),
}));

export const POST = adminRoute(webhookRoutes.create, async ({ principal, body }) => {
  const { team, actor } = await owningTeam(principal, body.team, "admin", "the subscription");
  return createWebhook(actor, body, team);
});
