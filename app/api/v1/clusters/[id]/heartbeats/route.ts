import { clusterRoutes } from "@/lib/contracts/clusters";
import { adminRoute } from "@/lib/server/api/admin-route";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { heartbeatsPerMinute } from "@/lib/server/fleet/overview";
import { getSettings } from "@/lib/server/settings/settings";

/** Heartbeats per minute for one cluster; a minute with none is a visible gap. */
export const GET = adminRoute(clusterRoutes.heartbeats, async ({ params, query }) => {
  if (!(await db().cluster.findUnique({ where: { id: params.id }, select: { id: true } }))) {
    throw new ApiError("not_found", "No cluster with this id.");
  }
  const { heartbeatIntervalSeconds } = await getSettings();
  return {
    bucketSeconds: 60,
    expectedPerBucket: 60 / heartbeatIntervalSeconds,
    items: await heartbeatsPerMinute(query.minutes, new Date(), params.id),
  };
});
