// CAPI Clusters written straight into the e2e server's database, as a source's watch would have
// recorded them: e2e has no management cluster, so the steps, conditions and failures a page shows
// are seeded here. Rows with no nextAttemptAt are left alone by the importer until someone acts.
import { execSql, sqlTimestamp } from "./database";

export type SeedCapiCluster = {
  namespace: string;
  name: string;
  fleetName: string;
  step: string;
  clusterId?: string | null;
  optedIn?: boolean;
  capiPhase?: string | null;
  conditions?: { type: string; status: "True" | "False" | "Unknown"; reason?: string; message?: string }[];
  labels?: Record<string, string>;
  infrastructureProvider?: string | null;
  kubernetesVersion?: string | null;
  topologyClass?: string | null;
  controlPlaneInitialized?: boolean;
  createdSecondsAgo?: number;
  error?: { message: string; secondsAgo: number; attempts: number; nextInSeconds: number } | null;
  excluded?: { by: string; secondsAgo: number } | null;
};

/** Inserts the rows under the source; returns their ids by `namespace/name`. */
export async function seedCapiClusters(run: string, sourceId: string, rows: SeedCapiCluster[]): Promise<Record<string, string>> {
  const now = Date.now();
  const at = (seconds: number) => sqlTimestamp(new Date(now + seconds * 1000));
  const ids: Record<string, string> = {};
  for (const [i, r] of rows.entries()) {
    const id = `capi_e2e${run}${String(i).padStart(2, "0")}`;
    ids[`${r.namespace}/${r.name}`] = id;
    await execSql(
      `INSERT INTO "CapiCluster" ("id", "sourceId", "namespace", "name", "uid", "fleetName", "clusterId", "optedIn", "capiPhase",
        "conditions", "labels", "infrastructureProvider", "kubernetesVersion", "topologyClass", "controlPlaneInitialized",
        "capiCreatedAt", "step", "stepError", "stepErrorAt", "attempts", "nextAttemptAt", "excludedAt", "excludedBy",
        "seenAt", "updatedAt")
       VALUES (?, ?, ?, ?, ?, ?, ?, ? = '1', ?, ?, ?, ?, ?, ?, ? = '1', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        sourceId,
        r.namespace,
        r.name,
        `uid-${run}-${i}`,
        r.fleetName,
        r.clusterId ?? null,
        r.optedIn === false ? "0" : "1",
        r.capiPhase ?? null,
        JSON.stringify(r.conditions ?? []),
        JSON.stringify(r.labels ?? {}),
        r.infrastructureProvider ?? null,
        r.kubernetesVersion ?? null,
        r.topologyClass ?? null,
        r.controlPlaneInitialized ? "1" : "0",
        at(-(r.createdSecondsAgo ?? 600)),
        r.step,
        r.error?.message ?? null,
        r.error ? at(-r.error.secondsAgo) : null,
        r.error?.attempts ?? 0,
        r.error ? at(r.error.nextInSeconds) : null,
        r.excluded ? at(-r.excluded.secondsAgo) : null,
        r.excluded?.by ?? null,
        at(0),
        at(0),
      ],
    );
  }
  return ids;
}
