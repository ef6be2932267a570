import "server-only";
import { asBool, asDate } from "@/lib/server/db/driver-values";
import { columns, list, queryRows, sql } from "@/lib/server/db/sql";

/** What the change gate and the enrollment checklist judge of one cluster, straight from its columns. */
export type GateFacts = {
  id: string;
  name: string;
  registeredAt: Date | null;
  phase: string;
  lastHeartbeatAt: Date | null;
  apiServerHealth: string | null;
  desiredPolicyRevision: string | null;
  appliedPolicyRevision: string | null;
  logsReporting: boolean | null;
  metricsReporting: boolean | null;
  labels: { key: string; value: string }[];
  /** the status the sweeper last recorded, and when: when a NotReady with a fresh heartbeat began (gate tolerance) */
  status?: string;
  statusChangedAt?: Date | null;
};

const c = columns("Cluster", "c");
const label = columns("ClusterLabel");

/** The columns gateFactsOf reads, from `"Cluster" c`. */
export const FACT_COLUMNS = c.list(
  "id",
  "name",
  "registeredAt",
  "phase",
  "lastHeartbeatAt",
  "apiServerHealth",
  "desiredPolicyRevision",
  "appliedPolicyRevision",
  "logsReporting",
  "metricsReporting",
  "status",
  "statusChangedAt",
);

export function labelsByCluster(labels: { clusterId: string; key: string; value: string }[]) {
  const byCluster = new Map<string, { key: string; value: string }[]>();
  for (const l of labels) {
    const of = byCluster.get(l.clusterId);
    if (of) of.push({ key: l.key, value: l.value });
    else byCluster.set(l.clusterId, [{ key: l.key, value: l.value }]);
  }
  return byCluster;
}

export function gateFactsOf(r: Record<string, unknown>, labels: Map<string, { key: string; value: string }[]>): GateFacts {
  return {
    id: r.id as string,
    name: r.name as string,
    registeredAt: asDate(r.registeredAt),
    phase: r.phase as string,
    lastHeartbeatAt: asDate(r.lastHeartbeatAt),
    apiServerHealth: (r.apiServerHealth as string | null) ?? null,
    desiredPolicyRevision: (r.desiredPolicyRevision as string | null) ?? null,
    appliedPolicyRevision: (r.appliedPolicyRevision as string | null) ?? null,
    logsReporting: asBool(r.logsReporting),
    metricsReporting: asBool(r.metricsReporting),
    labels: labels.get(r.id as string) ?? [],
    status: r.status as string,
    statusChangedAt: asDate(r.statusChangedAt),
  };
}

/**
 * The gate's facts of these clusters (one chunk of ids), in two plain queries by primary key:
 * exactly the columns the gate reads, and every label of the chunk. Order is not kept.
 */
export async function gateFacts(ids: readonly string[]): Promise<GateFacts[]> {
  if (!ids.length) return [];
  const [rows, labels] = await Promise.all([
    queryRows<Record<string, unknown>>(sql`SELECT ${FACT_COLUMNS} FROM ${c.table} WHERE ${c("id")} IN (${list(ids)})`),
    queryRows<{ clusterId: string; key: string; value: string }>(
      sql`SELECT ${label.list("clusterId", "key", "value")} FROM ${label.table} WHERE ${label("clusterId")} IN (${list(ids)})`,
    ),
  ]);
  const byCluster = labelsByCluster(labels);
  return rows.map((r) => gateFactsOf(r, byCluster));
}
