import "server-only";
import { z } from "zod";
import { clusterStatus } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { selectionWhere } from "@/lib/server/clusters/list-clusters";
import { enrollmentChecklist } from "@/lib/domain/enrollment";
import { groupsMatching } from "@/lib/server/clusters/get-cluster";

export const gateQuerySchema = z
  .object({ selector: z.string().max(2000).optional(), group: z.string().max(200).optional() })
  .refine((q) => q.selector !== undefined || q.group !== undefined, { message: "name a selector or a group" });

const MAX_CLUSTERS = 5000;

/**
 * GET /api/v1/gate: may a pipeline deploy to these clusters? Passes only when at least one
 * cluster matches and every match is registered, Active, Ready and enrolled; each failing
 * cluster says why.
 */
export async function evaluateGate(q: z.infer<typeof gateQuerySchema>) {
  const now = new Date();
  const settings = await getSettings();
  const where = await selectionWhere({ selector: q.selector, group: q.group });
  const total = await db().cluster.count({ where });
  if (total > MAX_CLUSTERS)
    throw new ApiError("invalid_request", `The selection matches ${total} clusters; the gate evaluates at most ${MAX_CLUSTERS}.`);
  const clusters = await db().cluster.findMany({
    where,
    orderBy: { name: "asc" },
    include: { labels: { select: { key: true, value: true } } },
  });
  const results = await Promise.all(
    clusters.map(async (c) => {
      const labels = Object.fromEntries(c.labels.map((l) => [l.key, l.value]));
      const status = clusterStatus(c, now, settings.notReadyThresholdSeconds);
      const items = enrollmentChecklist(
        { ...c, labels, groupCount: (await groupsMatching(labels)).length },
        settings.requiredLabels,
        now,
        settings.notReadyThresholdSeconds,
      );
      const enrolled = items.every((i) => i.ok);
      const reasons: string[] = [];
      if (!c.registeredAt) reasons.push("not registered: no agent has claimed it");
      if (c.phase !== "Active") reasons.push(`phase is ${c.phase}, not Active`);
      if (status !== "Ready") reasons.push(`status is ${status}, not Ready`);
      for (const i of items) if (!i.ok && i.key !== "ready") reasons.push(`${i.label}: ${i.reason}`);
      return { id: c.id, name: c.name, status, phase: c.phase, enrolled, reasons };
    }),
  );
  const failing = results.filter((r) => r.reasons.length);
  const pass = results.length > 0 && failing.length === 0;
  const what = q.group ? `group ${q.group}` : `selector "${q.selector}"`;
  const summary =
    results.length === 0
      ? `No cluster matches ${what}: nothing to deploy to.`
      : pass
        ? `All ${results.length} cluster(s) matching ${what} are registered, Active, Ready and enrolled.`
        : `${failing.length} of ${results.length} cluster(s) matching ${what} are not ready for a deployment.`;
  return { pass, summary, evaluatedAt: now.toISOString(), clusters: results };
}
