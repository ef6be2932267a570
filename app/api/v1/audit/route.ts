import { adminRoute } from "@/lib/server/api/admin-route";
import { parseWith } from "@/lib/server/api/read-body";
import { auditQuerySchema, listAudit } from "@/lib/server/audit/list-audit";

export const GET = adminRoute("operator", async ({ req }) => {
  const query = parseWith(auditQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query");
  return Response.json(await listAudit(query));
});
