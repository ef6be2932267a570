import { webhookRoutes } from "@/lib/contracts/webhooks";
import { adminRoute } from "@/lib/server/api/admin-route";
import { actingTeam, actorFor, teamsInReach } from "@/lib/server/teams/acting-team";
import { createWebhook, listWebhooks } from "@/lib/server/webhooks/subscriptions";

// A fleet admin's answer is unbounded (scope null); a team admin's holds their teams' own.
export const GET = adminRoute(webhookRoutes.list, async ({ principal, scope }) => ({
  items: await listWebhooks(teamsInReach(principal, scope, "admin")),
}));

export const POST = adminRoute(webhookRoutes.create, async ({ principal, body }) => {
  const team = await actingTeam(principal, body.team, webhookRoutes.create);
  return createWebhook(actorFor(principal, team, webhookRoutes.create), body, team && { id: team.teamId, name: team.team });
});
