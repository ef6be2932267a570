import { auditRoutes } from "@/lib/contracts/audit";
import { adminRoute } from "@/lib/server/api/admin-route";
import { exportAudit, exportFileName } from "@/lib/server/audit/export-audit";

export const GET = adminRoute(
  auditRoutes.export,
  async ({ query }) =>
    new Response(await exportAudit(query), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${exportFileName()}"`,
        "cache-control": "no-store",
      },
    }),
);
