import "server-only";
import { createHash } from "node:crypto";
import { clusterProfile, type ClusterProfile } from "@/lib/domain/cluster-profiles";
import { db } from "@/lib/server/db/client";
import { log } from "@/lib/server/log";
import { incCounter } from "@/lib/server/metrics/registry";
import { processSingleton } from "@/lib/server/process-singletons";
import { getSettings } from "@/lib/server/settings/settings";
import { loadExporterConfig, recordExportRun } from "./exporter-settings";
import { HubClient, HubError } from "./hub-client";
import { loadProfileFacts } from "./profile-facts";

// The background job that keeps the hub's ClusterProfiles equal to the fleet. Each run maps every
// cluster (pure, lib/domain/cluster-profiles.ts), compares it with what was last applied (a hash
// per profile in ClusterProfileExport, so a restart reapplies nothing), and applies only what
// changed: the object, then the status subresource. A profile is written at most once per
// PROFILE_BUDGET_MS (the standard's budget for a cluster manager), and a run writes at most
// MAX_WRITES_PER_RUN profiles, so a first export of a large fleet spreads over several runs.
// Profiles whose cluster is gone are deleted. The first hub error ends the run: it is recorded
// for the Settings page and counted in /api/metrics, and the next run tries again.

export const PROFILE_BUDGET_MS = 30_000;
export const EXPORT_EVERY_MS = 5_000;
const MAX_WRITES_PER_RUN = 50;
const FACTS_PAGE = 1_000;
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
  }));

const sha256 = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");
const objectHash = (p: ClusterProfile) => sha256([p.metadata, p.spec]);
const statusHash = (p: ClusterProfile) => sha256(p.status);

export type ExportRun = { applied: string[]; deleted: string[]; waiting: string[]; error: string | null };

type Row = { name: string; objectHash: string; statusHash: string; generation: number | null; appliedAt: Date };

/** One run of the exporter; null when it is off. `now` and `maxWrites` are for tests. */
export async function exportClusterProfiles(opts: { now?: Date; maxWrites?: number } = {}): Promise<ExportRun | null> {
  const now = opts.now ?? new Date();
  let config;
  try {
    config = await loadExporterConfig();
  } catch (err) {
    // A kubeconfig that no longer opens (another KEK) is the admin's to fix: show it, do not crash.
    const message = `The stored hub kubeconfig cannot be opened: ${err instanceof Error ? err.message : String(err)}`;
    incCounter(EXPORT_ERRORS, "ClusterProfile export runs ended by an error, by reason", { reason: "kubeconfig" });
    await recordExportRun({ at: now, changed: false, error: message });
    return { applied: [], deleted: [], waiting: [], error: message };
  }
  if (!config) return null;
  const run: ExportRun = { applied: [], deleted: [], waiting: [], error: null };
  const budget = opts.maxWrites ?? MAX_WRITES_PER_RUN;
  const hubKey = sha256([config.kubeconfig, config.namespace]);
  try {
    const hub = new HubClient(config.kubeconfig, config.namespace);
    const settings = await getSettings();
    const ctx = { now, notReadyThresholdSeconds: settings.notReadyThresholdSeconds, namespace: config.namespace };
    const rows = new Map<string, Row>((await db().clusterProfileExport.findMany()).map((r) => [r.name, r]));

    // Listing the hub first: a profile deleted there by hand counts as changed below.
    let onHub: Set<string> | null = null;
    const state = reconcile();
    if (state.hub !== hubKey || state.at === null || now.getTime() - state.at >= RECONCILE_EVERY_MS) {
      onHub = new Set(await hub.listManagedNames());
      for (const row of rows.values()) if (!onHub.has(row.name)) Object.assign(row, { objectHash: "", statusHash: "" });
      Object.assign(state, { hub: hubKey, at: now.getTime() });
    }

    const fleet = new Set<string>();
    const due: ClusterProfile[] = [];
    for (let after: string | undefined; ;) {
      const page = await loadProfileFacts({ after, take: FACTS_PAGE });
      for (const facts of page) {
        fleet.add(facts.name);
        const profile = clusterProfile(facts, ctx);
        const row = rows.get(facts.name);
        if (row && row.objectHash === objectHash(profile) && row.statusHash === statusHash(profile)) continue;
        if (row && now.getTime() - row.appliedAt.getTime() < PROFILE_BUDGET_MS) run.waiting.push(facts.name);
        else due.push(profile);
      }
      if (page.length < FACTS_PAGE) break;
      after = page[page.length - 1]!.name;
    }
    const gone = [...rows.keys()].filter((name) => !fleet.has(name));
    for (const name of onHub ?? []) if (!fleet.has(name) && !rows.has(name)) gone.push(name);

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
