import { auditRoutes } from "@/lib/contracts/audit";
import { adminRoute } from "@/lib/server/api/admin-route";
import { exportAudit, exportFileName } from "@/lib/server/audit/export-audit";
import { auditReach } from "@/lib/server/audit/list-audit";

export const GET = adminRoute(
  auditRoutes.export,
  async ({ query, scope, principal }) =>
    new Response(
      await exportAudit(
        query,
        await auditReach(
          scope,
          principal.teams.map((g) => g.teamId),
        ),
      ),
      {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="${exportFileName()}"`,
          "cache-control": "no-store",
        },
      },
    ),
);
