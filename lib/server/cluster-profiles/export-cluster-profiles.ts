import "server-only";
import { createHash } from "node:crypto";
import { clusterProfile, type ClusterProfile } from "@/lib/domain/cluster-profiles";
import { db } from "@/lib/server/db/client";
import { columns, queryRows, raw, sql } from "@/lib/server/db/sql";
import { log } from "@/lib/server/log";
import { incCounter } from "@/lib/server/metrics/registry";
import { processSingleton } from "@/lib/server/process-singletons";
import { getSettings } from "@/lib/server/settings/settings";
import { loadExporterConfig, recordExportRun, type ExporterConfig } from "./exporter-settings";
import type { HubClient } from "./hub-client";
import { HubError } from "./hub-error";
import { loadProfileFacts } from "./profile-facts";

// The background job that keeps the hub's ClusterProfiles equal to the fleet. Each run maps a slice
// of SCAN_PER_RUN clusters by name (pure, lib/domain/cluster-profiles.ts; the next run takes the next
// slice), compares them with what was last applied (a hash per profile in ClusterProfileExport, so
// a restart reapplies nothing), and applies only what changed: the object, then the status
// subresource. A profile is written at most once per
// PROFILE_BUDGET_MS (the standard's budget for a cluster manager), and a run writes at most
// MAX_WRITES_PER_RUN profiles, so a first export of a large fleet spreads over several runs.
// Profiles whose cluster is gone are deleted. The first hub error ends the run: it is recorded
// for the Settings page and counted in /api/metrics, and the next run tries again.

export const PROFILE_BUDGET_MS = 30_000;
export const EXPORT_EVERY_MS = 5_000;
const MAX_WRITES_PER_RUN = 50;
// Clusters mapped and compared per run: a 5,000-cluster fleet is passed over in 25 s.
const SCAN_PER_RUN = 1_000;
// The hub is listed (by our cluster-manager label) on the first run and then this often, to delete
// profiles an earlier install or a restored database left and to reapply ones deleted by hand.
// In between, an unchanged fleet sends the hub nothing.
const RECONCILE_EVERY_MS = 10 * 60_000;

export const EXPORT_WRITES = "fleet_cluster_profile_writes_total";
export const EXPORT_ERRORS = "fleet_cluster_profile_export_errors_total";

const reconcile = () =>
  processSingleton("cluster-profile-reconcile", () => ({
    hub: "",
    at: null as number | null,
    loggedError: null as string | null,
    /** where the next run's slice of the fleet starts (null: at the first name) */
    scanAfter: null as string | null,
    /** the hub's client, kept between runs for its keep-alive connections */
    client: null as { key: string; hub: HubClient } | null,
  }));

async function hubClient(key: string, config: ExporterConfig): Promise<HubClient> {
  const state = reconcile();
  if (state.client?.key !== key) {
    state.client?.hub.close();
    // Loaded on first use: an install that exports nothing never pays for @kubernetes/client-node.
    const { HubClient } = await import("./hub-client");
    state.client = { key, hub: new HubClient(config.hub, config.namespace, config.allowPrivate) };
  }
  return state.client.hub;
}

const sha256 = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");
const objectHash = (p: ClusterProfile) => sha256([p.metadata, p.spec]);
const statusHash = (p: ClusterProfile) => sha256(p.status);

export type ExportRun = { applied: string[]; deleted: string[]; waiting: string[]; error: string | null };

type Row = { name: string; objectHash: string; statusHash: string; generation: number | null; appliedAt: Date };

/** One run of the exporter; null when it is off. `now`, `maxWrites` and `scanPerRun` are for tests. */
export async function exportClusterProfiles(
  opts: { now?: Date; maxWrites?: number; scanPerRun?: number } = {},
): Promise<ExportRun | null> {
  const now = opts.now ?? new Date();
  let config;
  try {
    config = await loadExporterConfig();
  } catch (err) {
    // A kubeconfig that no longer opens (another KEK) or is refused is the admin's to fix: show it, do not crash.
    if (!(err instanceof HubError)) throw err;
    const message = err.message;
    incCounter(EXPORT_ERRORS, "ClusterProfile export runs ended by an error, by reason", { reason: "kubeconfig" });
    await recordExportRun({ at: now, changed: false, error: message });
    return { applied: [], deleted: [], waiting: [], error: message };
  }
  if (!config) {
    reconcile().client?.hub.close();
    reconcile().client = null;
    return null;
  }
  const run: ExportRun = { applied: [], deleted: [], waiting: [], error: null };
  const budget = opts.maxWrites ?? MAX_WRITES_PER_RUN;
  const hubKey = sha256([config.hub, config.namespace, config.allowPrivate]);
  try {
    const hub = await hubClient(hubKey, config);
    const settings = await getSettings();
    const ctx = { now, notReadyThresholdSeconds: settings.notReadyThresholdSeconds, namespace: config.namespace };
    const state = reconcile();
    // Listing the hub first: a profile deleted there by hand is marked changed before the scan.
    const leftovers: string[] = [];
    if (state.hub !== hubKey || state.at === null || now.getTime() - state.at >= RECONCILE_EVERY_MS) {
      leftovers.push(...(await reconcileWithHub(hub)));
      Object.assign(state, { hub: hubKey, at: now.getTime() });
    }

    // One slice of the fleet per run, so a run's cost stays bounded however large the fleet.
    const scan = opts.scanPerRun ?? SCAN_PER_RUN;
    const page = await loadProfileFacts({ after: state.scanAfter ?? undefined, take: scan });
    state.scanAfter = page.length < scan ? null : page[page.length - 1]!.name;
    const rows = new Map<string, Row>(
      (await db().clusterProfileExport.findMany({ where: { name: { in: page.map((f) => f.name) } } })).map((r) => [r.name, r]),
    );
    const due: ClusterProfile[] = [];
    for (const facts of page) {
      const profile = clusterProfile(facts, ctx);
      const row = rows.get(facts.name);
      if (row && row.objectHash === objectHash(profile) && row.statusHash === statusHash(profile)) continue;
      if (row && now.getTime() - row.appliedAt.getTime() < PROFILE_BUDGET_MS) run.waiting.push(facts.name);
      else due.push(profile);
    }
    const gone = [...(await exportsWithoutCluster(budget)), ...leftovers];

    let writes = 0;
    for (const name of gone) {
      if (writes++ >= budget) break;
      await hub.delete(name);
      await db().clusterProfileExport.deleteMany({ where: { name } });
      incCounter(EXPORT_WRITES, "ClusterProfile writes to the hub, by kind", { kind: "delete" });
      run.deleted.push(name);
    }
    for (const profile of due) {
      if (writes >= budget) break;
      const name = profile.metadata.name;
      const row = rows.get(name);
      if (!(await claim(name, row, now))) continue;
      writes++;
      const oh = objectHash(profile);
      const sh = statusHash(profile);
      let generation = row?.generation ?? null;
      if (!row || row.objectHash !== oh) {
        generation = (await hub.applyObject(profile)) ?? null;
        incCounter(EXPORT_WRITES, "ClusterProfile writes to the hub, by kind", { kind: "object" });
      }
      if (!row || row.statusHash !== sh || row.generation !== generation) {
        const conditions = profile.status.conditions.map((c) =>
          generation === null ? c : { ...c, observedGeneration: generation },
        );
        await hub.applyStatus({ ...profile, status: { ...profile.status, conditions } });
        incCounter(EXPORT_WRITES, "ClusterProfile writes to the hub, by kind", { kind: "status" });
      }
      await db().clusterProfileExport.update({ where: { name }, data: { objectHash: oh, statusHash: sh, generation } });
      run.applied.push(name);
    }
  } catch (err) {
    if (!(err instanceof HubError)) throw err;
    run.error = err.message;
    incCounter(EXPORT_ERRORS, "ClusterProfile export runs ended by an error, by reason", { reason: err.reason });
    // Logged when it starts (or changes), not every 5 s while the hub stays away: the metric counts each run.
    if (reconcile().loggedError !== err.message)
      log.warn("ClusterProfile export stopped by the hub", { reason: err.reason, error: err.message });
    reconcile().loggedError = err.message;
    // A failed listing is retried on the next run, not ten minutes later.
    if (reconcile().hub === hubKey) reconcile().at = null;
  }
  if (!run.error && reconcile().loggedError) {
    log.info("ClusterProfile export works again");
    reconcile().loggedError = null;
  }
  await recordExportRun({ at: now, changed: run.applied.length + run.deleted.length > 0, error: run.error });
  return run;
}

/**
 * Lists the hub's profiles of this fleet: those applied once and missing there now are marked
 * changed (the scan applies them again); those with no cluster and no record are returned, to delete.
 */
async function reconcileWithHub(hub: HubClient): Promise<string[]> {
  const onHub = new Set(await hub.listManagedNames());
  const recorded = new Set((await db().clusterProfileExport.findMany({ select: { name: true } })).map((r) => r.name));
  const missing = [...recorded].filter((name) => !onHub.has(name));
  const unknown = [...onHub].filter((name) => !recorded.has(name));
  for (let i = 0; i < missing.length; i += 1_000) {
    await db().clusterProfileExport.updateMany({
      where: { name: { in: missing.slice(i, i + 1_000) } },
      data: { objectHash: "", statusHash: "" },
    });
  }
  const leftovers: string[] = [];
  for (let i = 0; i < unknown.length; i += 1_000) {
    const chunk = unknown.slice(i, i + 1_000);
    const clusters = new Set(
      (await db().cluster.findMany({ where: { name: { in: chunk } }, select: { name: true } })).map((c) => c.name),
    );
    leftovers.push(...chunk.filter((name) => !clusters.has(name)));
  }
  return leftovers;
}

/** Profiles applied for clusters that no longer exist, at most `limit`. */
async function exportsWithoutCluster(limit: number): Promise<string[]> {
  const e = columns("ClusterProfileExport", "e");
  const c = columns("Cluster", "c");
  const rows = await queryRows<{ name: string }>(
    sql`SELECT ${e("name")} AS name FROM ${e.table} LEFT JOIN ${c.table} ON ${c("name")} = ${e("name")}
     WHERE ${c("id")} IS NULL ORDER BY ${e("name")} LIMIT ${raw(String(Math.floor(limit)))}`,
  );
  return rows.map((r) => r.name);
}

/**
 * Takes a profile's 30 s slot before writing it, so two instances never both write it and a
 * failed write waits its turn too: a conditional update on the time read, or the first row.
 */
async function claim(name: string, row: Row | undefined, now: Date): Promise<boolean> {
  if (row) {
    const taken = await db().clusterProfileExport.updateMany({
      where: { name, appliedAt: row.appliedAt },
      data: { appliedAt: now },
    });
    return taken.count === 1;
  }
  try {
    await db().clusterProfileExport.create({ data: { name, objectHash: "", statusHash: "", appliedAt: now } });
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === "P2002") return false;
    throw err;
  }
}
