import { auditRoutes } from "@/lib/contracts/audit";
import { adminRoute } from "@/lib/server/api/admin-route";
import { listAudit } from "@/lib/server/audit/list-audit";

export const GET = adminRoute(auditRoutes.list, async ({ query }) => listAudit(query));
