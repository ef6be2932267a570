// Clusters written straight into the e2e server's database with the facts a list test needs
// (heartbeat age, status history, labels, enrollment facts), which an agent could only produce
// by waiting. Each spec passes its own run id so its filters see only its own clusters.
import type { APIRequestContext } from "@playwright/test";
import { execSql, sqlTimestamp } from "./database";

export type SeedCluster = {
  name: string;
  labels?: Record<string, string>;
  /** seconds since the last heartbeat; null: never heartbeated */
  heardSecondsAgo?: number | null;
  /** seconds since the stored status last changed */
  statusChangedSecondsAgo?: number;
  status?: "Ready" | "NotReady" | "Pending";
  /** the agent reports logs and metrics flowing (enrollment needs both) */
  reporting?: boolean;
  clusterUid?: string;
};

/** The fleet's required labels, so a cluster meant to enroll can carry them. */
export async function requiredLabels(admin: APIRequestContext): Promise<string[]> {
  return ((await (await admin.get("/api/v1/settings")).json()) as { requiredLabels: string[] }).requiredLabels;
}

/** Rows per INSERT: well inside both engines' limits on bound parameters. */
const SEED_BATCH = 500;

/**
 * Inserts the clusters (Active, registered) and returns their ids by name: all rows in two
 * statements, so a big seed holds the database's write lock briefly, not once per row (the server
 * answers 503 to other specs' writes while it waits for the lock).
 */
export async function seedClusters(run: string, clusters: SeedCluster[]): Promise<Record<string, string>> {
  const now = Date.now();
  const at = (secondsAgo: number) => sqlTimestamp(new Date(now - secondsAgo * 1000));
  const ids: Record<string, string> = {};
  const rows: (string | null)[][] = [];
  const labels: string[][] = [];
  for (const [i, c] of clusters.entries()) {
    const id = `cl_e2e${run}${String(i).padStart(3, "0")}`;
    ids[c.name] = id;
    const heard = c.heardSecondsAgo === undefined ? 0 : c.heardSecondsAgo;
    const reporting = c.reporting ?? true;
    rows.push([
      id,
      c.name,
      at(3600),
      heard === null ? null : at(heard),
      heard === null ? null : "ok",
      c.status ?? (heard === null ? "Pending" : "Ready"),
      at(c.statusChangedSecondsAgo ?? 3000),
      reporting ? "1" : "0",
      c.clusterUid ?? null,
      at(3600),
      at(0),
    ]);
    for (const [k, v] of Object.entries(c.labels ?? {})) labels.push([id, k, v]);
  }
  for (let i = 0; i < rows.length; i += SEED_BATCH) {
    const batch = rows.slice(i, i + SEED_BATCH);
    await execSql(
      `INSERT INTO "Cluster" ("id", "name", "phase", "registeredAt", "lastHeartbeatAt", "apiServerHealth", "status", "statusChangedAt",
        "logsReporting", "metricsReporting", "kubernetesVersion", "agentVersion", "clusterUid", "createdAt", "updatedAt")
       VALUES ${batch.map(() => "(?, ?, 'Active', ?, ?, ?, ?, ?, ? = '1', ? = '1', '1.31.4', '1.4.0', ?, ?, ?)").join(", ")}`,
      // The reporting flag twice: logs and metrics.
      batch.flatMap((r) => [...r.slice(0, 8), r[7]!, ...r.slice(8)]),
    );
  }
  for (let i = 0; i < labels.length; i += SEED_BATCH * 3)
    await execSql(
      `INSERT INTO "ClusterLabel" ("clusterId", "key", "value") VALUES ${labels
        .slice(i, i + SEED_BATCH * 3)
        .map(() => "(?, ?, ?)")
        .join(", ")}`,
      labels.slice(i, i + SEED_BATCH * 3).flat(),
    );
  return ids;
}

/** Moves these clusters' last heartbeat to now (a slow test may outlive the NotReady threshold). */
export async function heartbeatNow(ids: string[]): Promise<void> {
  for (const id of ids)
    await execSql(`UPDATE "Cluster" SET "lastHeartbeatAt" = ?, "apiServerHealth" = 'ok' WHERE "id" = ?`, [sqlTimestamp(), id]);
}
