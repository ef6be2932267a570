import "server-only";
import { columns, readOnDriver, sql } from "@/lib/server/db/sql";
import { asDate } from "@/lib/server/db/driver-values";
import { FACT_COLUMNS, gateFactsOf, labelsByCluster, type GateFacts } from "./gate-facts";

/** The enrollment evaluator's row: the checklist's facts and what it stored last time. */
export type EnrollmentFacts = GateFacts & { enrollment: string | null; enrolledAt: Date | null };

const c = columns("Cluster", "c");
const label = columns("ClusterLabel");

/**
 * Up to `limit` clusters after `afterId` in id order, with the checklist's facts, the stored
 * checklist and every label: two range reads on primary keys (Cluster, and ClusterLabel's
 * (clusterId, key)), instead of a Prisma query with a relation (which cost the evaluator most
 * of its 0.6 s of CPU a pass at 10,000 clusters), read on the driver (Prisma's mapping of the raw
 * rows was a third of what remained).
 */
export async function enrollmentPage(afterId: string | null, limit: number): Promise<EnrollmentFacts[]> {
  const after = afterId === null ? sql`` : sql`WHERE ${c("id")} > ${afterId}`;
  const rows = await readOnDriver<Record<string, unknown>>(
    sql`SELECT ${FACT_COLUMNS}, ${c.list("enrollment", "enrolledAt")} FROM ${c.table} ${after} ORDER BY ${c("id")} LIMIT ${limit}`,
  );
  if (!rows.length) return [];
  const first = rows[0]!.id as string;
  const last = rows[rows.length - 1]!.id as string;
  const labels = await readOnDriver<{ clusterId: string; key: string; value: string }>(
    sql`SELECT ${label.list("clusterId", "key", "value")} FROM ${label.table} WHERE ${label("clusterId")} >= ${first} AND ${label("clusterId")} <= ${last}`,
  );
  const byCluster = labelsByCluster(labels);
  return rows.map((r) => ({
    ...gateFactsOf(r, byCluster),
    enrollment: (r.enrollment as string | null) ?? null,
    enrolledAt: asDate(r.enrolledAt),
  }));
}
