import { z } from "zod";
import { adminRoute } from "@/lib/server/api/admin-route";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";
import { db } from "@/lib/server/db/client";
import { heartbeatsPerMinute } from "@/lib/server/fleet/overview";
import { getSettings } from "@/lib/server/settings/settings";

const query = z.object({
  minutes: z.coerce
    .number()
    .int()
    .min(5)
    .max(7 * 24 * 60)
    .default(360),
});

/** Heartbeats per minute for one cluster; a minute with none is a visible gap. */
export const GET = adminRoute<{ id: string }>("viewer", async ({ req, params }) => {
  const { minutes } = parseWith(query, Object.fromEntries(req.nextUrl.searchParams), "query");
  if (!(await db().cluster.findUnique({ where: { id: params.id }, select: { id: true } }))) {
    throw new ApiError("not_found", "No cluster with this id.");
  }
  const { heartbeatIntervalSeconds } = await getSettings();
  return Response.json({
    bucketSeconds: 60,
    expectedPerBucket: 60 / heartbeatIntervalSeconds,
    items: await heartbeatsPerMinute(minutes, new Date(), params.id),
  });
});
