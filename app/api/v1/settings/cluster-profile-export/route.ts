import { clusterProfileRoutes } from "@/lib/contracts/cluster-profiles";
import { adminRoute } from "@/lib/server/api/admin-route";
import { getExporterState, updateExporter } from "@/lib/server/cluster-profiles/exporter-settings";

export const GET = adminRoute(clusterProfileRoutes.exporter, async () => getExporterState());

export const PATCH = adminRoute(clusterProfileRoutes.updateExporter, async ({ principal, body }) =>
  updateExporter(principal.actor, body),
);
