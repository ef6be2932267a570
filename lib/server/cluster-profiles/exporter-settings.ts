import "server-only";
import { errorText } from "@/lib/domain/error-text";
import type { ExporterPatch, ExporterState } from "@/lib/contracts/cluster-profiles";
import { checkHubKubeconfig, type HubKubeconfig } from "@/lib/domain/kubeconfig";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { isSealedKey, sealKey, unsealKey } from "@/lib/server/pki/ca-key-seal";
import { refuseForbiddenTarget } from "@/lib/server/net/check-target";
import { getSettings } from "@/lib/server/settings/settings";
import { HubError } from "./hub-error";
import { HUB_RULE } from "./hub-target";

// The ClusterProfile exporter's settings: one row (ClusterProfileExporter "hub"). The hub
// kubeconfig holds a credential for another cluster, so it is stored only sealed with the KEK
// (as the fleet CA key is), under its own purpose, and never leaves the server again.

const ROW_ID = "hub";
export const DEFAULT_EXPORT_NAMESPACE = "fleet-registry";
// A sealed kubeconfig copied into another sealed field does not open.
const KUBECONFIG_AAD = Buffer.from("fleet-registry/hub-kubeconfig/v1");

/** What the exporter job needs: null when it is off or has no hub. */
export type ExporterConfig = { namespace: string; hub: HubKubeconfig; allowPrivate: boolean };

async function row() {
  return db().clusterProfileExporter.findUnique({ where: { id: ROW_ID } });
}

export async function getExporterState(): Promise<ExporterState> {
  const [r, exported] = await Promise.all([row(), db().clusterProfileExport.count({ where: { objectHash: { not: "" } } })]);
  return {
    enabled: r?.enabled ?? false,
    namespace: r?.namespace ?? DEFAULT_EXPORT_NAMESPACE,
    kubeconfig: { set: !!r?.sealedKubeconfig, server: r?.sealedKubeconfig ? r.hubServer : null },
    kekConfigured: env().fleetCaKek !== null,
    lastExportAt: r?.lastExportAt?.toISOString() ?? null,
    lastError: r?.lastError && r.lastErrorAt ? { message: r.lastError, at: r.lastErrorAt.toISOString() } : null,
    exported,
  };
}

/** The namespace profiles live in on the hub, once the exporter has been set up. */
export async function exporterNamespace(): Promise<string | null> {
  return (await row())?.namespace ?? null;
}

export async function updateExporter(actor: Actor, patch: ExporterPatch): Promise<ExporterState> {
  const before = await row();
  const data: { enabled?: boolean; namespace?: string; sealedKubeconfig?: string | null; hubServer?: string | null } = {};
  const changes: Record<string, unknown> = {};
  if (typeof patch.kubeconfig === "string") {
    const summary = checkHubKubeconfig(patch.kubeconfig);
    if (!summary.ok) {
      throw new ApiError("invalid_request", `The hub kubeconfig ${summary.problem}.`, [
        { field: "kubeconfig", message: `The hub kubeconfig ${summary.problem}.` },
      ]);
    }
    await refuseForbiddenTarget(summary.server, HUB_RULE, "kubeconfig");
    const kek = env().fleetCaKek;
    if (!kek) {
      throw new ApiError(
        "conflict",
        "The hub kubeconfig is stored sealed with the key-encryption key, and this server has none: set FLEET_CA_KEK_FILE (or FLEET_CA_KEK) first.",
      );
    }
    data.sealedKubeconfig = JSON.stringify(sealKey(patch.kubeconfig, kek, KUBECONFIG_AAD));
    data.hubServer = summary.server;
    changes.kubeconfig = { action: before?.sealedKubeconfig ? "replaced" : "set", server: summary.server };
  } else if (patch.kubeconfig === null) {
    data.sealedKubeconfig = null;
    data.hubServer = null;
    data.enabled = false;
    if (before?.sealedKubeconfig) changes.kubeconfig = { action: "removed", server: before.hubServer };
  }
  if (patch.enabled !== undefined && patch.kubeconfig !== null) data.enabled = patch.enabled;
  if (patch.namespace !== undefined) data.namespace = patch.namespace;
  const enabled = data.enabled ?? before?.enabled ?? false;
  if (enabled !== (before?.enabled ?? false)) changes.enabled = { from: before?.enabled ?? false, to: enabled };
  const namespace = data.namespace ?? before?.namespace ?? DEFAULT_EXPORT_NAMESPACE;
  if (namespace !== (before?.namespace ?? DEFAULT_EXPORT_NAMESPACE))
    changes.namespace = { from: before?.namespace ?? DEFAULT_EXPORT_NAMESPACE, to: namespace };
  const hasHub = data.sealedKubeconfig !== undefined ? data.sealedKubeconfig !== null : !!before?.sealedKubeconfig;
  if (enabled && !hasHub) {
    throw new ApiError("invalid_request", "Paste the hub kubeconfig before turning the export on.", [
      { field: "kubeconfig", message: "Paste the hub kubeconfig before turning the export on." },
    ]);
  }
  if (Object.keys(changes).length) {
    await db().$transaction(async (tx) => {
      await tx.clusterProfileExporter.upsert({
        where: { id: ROW_ID },
        create: { id: ROW_ID, namespace, enabled, ...data },
        update: data,
      });
      // Another hub or namespace holds none of what was applied: everything is applied afresh there.
      if (changes.kubeconfig || changes.namespace) await tx.clusterProfileExport.deleteMany({});
      await recordAudit(tx, actor, "clusterProfileExport.update", { type: "settings", id: "cluster-profile-export" }, changes);
    });
  }
  return getExporterState();
}

/**
 * The exporter's configuration with the kubeconfig opened and checked again (one stored before
 * the check, or under older rules, is refused here rather than run), or null when it is off.
 * Throws a HubError the job shows when the kubeconfig does not open or is refused.
 */
export async function loadExporterConfig(): Promise<ExporterConfig | null> {
  const r = await row();
  if (!r?.enabled || !r.sealedKubeconfig) return null;
  let text: string;
  try {
    const sealed: unknown = JSON.parse(r.sealedKubeconfig);
    if (!isSealedKey(sealed)) throw new Error("it is not a sealed envelope");
    text = unsealKey(sealed, env().fleetCaKek, KUBECONFIG_AAD);
  } catch (err) {
    throw new HubError("kubeconfig", `The stored hub kubeconfig cannot be opened: ${errorText(err)}`);
  }
  const hub = checkHubKubeconfig(text);
  if (!hub.ok) throw new HubError("kubeconfig", `The stored hub kubeconfig is refused: it ${hub.problem}. Paste one again.`);
  const { ok: _ok, ...checked } = hub;
  return { namespace: r.namespace, hub: checked, allowPrivate: (await getSettings()).hubAllowPrivateTargets };
}

/**
 * Records how a run went: the export time when it applied or deleted something, a new error (its
 * time is when it first appeared; a repeat writes nothing) or its clearing.
 */
export async function recordExportRun(run: { at: Date; changed: boolean; error: string | null }): Promise<void> {
  const r = await row();
  if (!r) return;
  const data: { lastExportAt?: Date; lastError?: string | null; lastErrorAt?: Date | null } = {};
  if (run.changed) data.lastExportAt = run.at;
  if (run.error && run.error !== r.lastError) Object.assign(data, { lastError: run.error, lastErrorAt: run.at });
  if (!run.error && r.lastError !== null) Object.assign(data, { lastError: null, lastErrorAt: null });
  if (Object.keys(data).length) await db().clusterProfileExporter.update({ where: { id: ROW_ID }, data });
}
