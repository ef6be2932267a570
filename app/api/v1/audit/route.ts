import { auditRoutes } from "@/lib/contracts/audit";
import { adminRoute } from "@/lib/server/api/admin-route";
import { auditReach, listAudit } from "@/lib/server/audit/list-audit";

export const GET = adminRoute(auditRoutes.list, async ({ query, scope, principal }) =>
  listAudit(
    query,
    await auditReach(
      scope,
      principal.teams.map((g) => g.teamId),
    ),
  ),
);
