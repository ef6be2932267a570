import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { revokeClusterCertificates } from "@/lib/server/clusters/update-cluster";

export const POST = adminRoute(clusterRoutes.revokeCertificate, async ({ principal, params, body }) =>
  revokeClusterCertificates(principal.actor, params.id, body.reason),
);
