import "server-only";
import { z } from "zod";
import type { CapiSourceView, CreateCapiSource, UpdateCapiSource } from "@/lib/contracts/cluster-api";
import { CAPI_STEPS, mappingProblem, type CapiStep, type LabelMapping } from "@/lib/domain/cluster-api";
import { errorText } from "@/lib/domain/error-text";
import { checkHubKubeconfig, type HubKubeconfig } from "@/lib/domain/kubeconfig";
import type { Labels } from "@/lib/domain/labels";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { isSealedKey, sealKey, unsealKey } from "@/lib/server/pki/ca-key-seal";
import { resolveTarget, TargetRefused, type TargetRule } from "@/lib/server/webhooks/post-webhook";

// Cluster API sources: the management clusters the fleet imports clusters from. A source's
// kubeconfig holds a credential for another cluster, so it is stored only sealed with the KEK (its
// own purpose), checked by the hub's rules (inline credentials only, https), and never returned.

const KUBECONFIG_AAD = Buffer.from("fleet-registry/capi-kubeconfig/v1");
/** The secret of a bound token waiting in a row until its agent registers. */
export const TOKEN_AAD = Buffer.from("fleet-registry/capi-token/v1");

/** A source's management cluster, and its clusters' API servers, are reached under this rule. */
export const CAPI_RULE: TargetRule = {
  subject: "Cluster API sources and their clusters are reached at",
  allowedBy: "the source's allowPrivateTargets",
};

const agentOptionsSchema = z.object({
  agentImage: z.string().optional(),
  httpsProxy: z.string().optional(),
  noProxy: z.string().optional(),
});
export type CapiAgentOptions = z.infer<typeof agentOptionsSchema>;

/** What the watcher and the importer need of a source, with its kubeconfig opened. */
export type LoadedSource = {
  id: string;
  name: string;
  namespaces: string[];
  optInLabel: string;
  labelMappings: LabelMapping[];
  fixedLabels: Labels;
  requireApproval: boolean;
  agentOptions: CapiAgentOptions;
  allowPrivateTargets: boolean;
  kubeconfig: HubKubeconfig;
  /** changes whenever anything the watch depends on changes (a new watcher is started then) */
  revision: string;
};

function kek(): Buffer {
  const key = env().fleetCaKek;
  if (!key) {
    throw new ApiError(
      "conflict",
      "A source's kubeconfig is stored sealed with the key-encryption key, and this server has none: set FLEET_CA_KEK_FILE (or FLEET_CA_KEK) first.",
    );
  }
  return key;
}

export function sealSecret(text: string, aad: typeof TOKEN_AAD): string {
  return JSON.stringify(sealKey(text, kek(), aad));
}

export function openSecret(sealed: string, aad: typeof TOKEN_AAD): string {
  const parsed: unknown = JSON.parse(sealed);
  if (!isSealedKey(parsed)) throw new Error("it is not a sealed envelope");
  return unsealKey(parsed, env().fleetCaKek, aad);
}

/** The kubeconfig checked, its server reachable under the source's rule: 400 otherwise. */
async function checkKubeconfig(text: string, allowPrivate: boolean): Promise<HubKubeconfig> {
  const summary = checkHubKubeconfig(text);
  if (!summary.ok) {
    const message = `The management cluster's kubeconfig ${summary.problem}.`;
    throw new ApiError("invalid_request", message, [{ field: "kubeconfig", message }]);
  }
  try {
    await resolveTarget(new URL(summary.server).hostname, allowPrivate, CAPI_RULE);
  } catch (err) {
    if (err instanceof TargetRefused)
      throw new ApiError("target_not_allowed", err.message, [{ field: "kubeconfig", message: err.message }]);
    throw err;
  }
  const { ok: _ok, ...checked } = summary;
  return checked;
}

function refuseBadMappings(mappings: readonly LabelMapping[] | undefined) {
  for (const [i, rule] of (mappings ?? []).entries()) {
    const problem = mappingProblem(rule);
    if (problem)
      throw new ApiError("invalid_request", `Label mapping ${i + 1}: ${problem}`, [
        { field: `labelMappings.${i}`, message: problem },
      ]);
  }
}

type Row = NonNullable<Awaited<ReturnType<typeof findRow>>>;
const findRow = (id: string) => db().capiSource.findUnique({ where: { id } });

/** A source row's settings, its JSON columns read. */
function settingsOf(r: Row) {
  return {
    namespaces: JSON.parse(r.namespaces) as string[],
    optInLabel: r.optInLabel,
    labelMappings: JSON.parse(r.labelMappings) as LabelMapping[],
    fixedLabels: JSON.parse(r.fixedLabels) as Labels,
    requireApproval: r.requireApproval,
    agentOptions: agentOptionsSchema.parse(JSON.parse(r.agentOptions)),
    allowPrivateTargets: r.allowPrivateTargets,
  };
}

async function view(row: Row): Promise<CapiSourceView> {
  const counts = await db().capiCluster.groupBy({ by: ["step"], where: { sourceId: row.id }, _count: { _all: true } });
  const steps = Object.fromEntries(CAPI_STEPS.map((s) => [s, 0])) as Record<CapiStep, number>;
  for (const c of counts) if ((CAPI_STEPS as readonly string[]).includes(c.step)) steps[c.step as CapiStep] = c._count._all;
  return {
    id: row.id,
    name: row.name,
    server: row.server,
    ...settingsOf(row),
    enabled: row.enabled,
    servedVersion: row.servedVersion,
    watching: !!row.watchLeaseUntil && row.watchLeaseUntil > new Date(),
    lastSyncAt: row.lastSyncAt?.toISOString() ?? null,
    lastError: row.lastError && row.lastErrorAt ? { message: row.lastError, at: row.lastErrorAt.toISOString() } : null,
    steps,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function listSources(): Promise<{ items: CapiSourceView[]; kekConfigured: boolean }> {
  const rows = await db().capiSource.findMany({ orderBy: { name: "asc" } });
  return { items: await Promise.all(rows.map(view)), kekConfigured: env().fleetCaKek !== null };
}

export async function createSource(actor: Actor, input: CreateCapiSource): Promise<CapiSourceView> {
  refuseBadMappings(input.labelMappings);
  const checked = await checkKubeconfig(input.kubeconfig, input.allowPrivateTargets);
  if (await db().capiSource.findUnique({ where: { name: input.name } }))
    throw new ApiError("conflict", `A source named ${input.name} already exists.`, [{ field: "name", message: "already taken" }]);
  const row = await db().$transaction(async (tx) => {
    const created = await tx.capiSource.create({
      data: {
        name: input.name,
        sealedKubeconfig: sealSecret(input.kubeconfig, KUBECONFIG_AAD),
        server: checked.server,
        namespaces: JSON.stringify(input.namespaces),
        optInLabel: input.optInLabel,
        labelMappings: JSON.stringify(input.labelMappings),
        fixedLabels: JSON.stringify(input.fixedLabels),
        requireApproval: input.requireApproval,
        agentOptions: JSON.stringify(input.agentOptions),
        allowPrivateTargets: input.allowPrivateTargets,
        enabled: input.enabled,
        createdBy: actor.label,
      },
    });
    const { kubeconfig: _secret, ...settings } = input;
    await recordAudit(
      tx,
      actor,
      "clusterApiSource.create",
      { type: "clusterApiSource", id: created.id },
      { ...settings, server: checked.server },
    );
    return created;
  });
  return view(row);
}

export async function updateSource(actor: Actor, id: string, patch: UpdateCapiSource): Promise<CapiSourceView> {
  const before = await findRow(id);
  if (!before) throw new ApiError("not_found", "No Cluster API source with this id.");
  refuseBadMappings(patch.labelMappings);
  const data: Record<string, unknown> = {};
  const changes: Record<string, unknown> = {};
  const allowPrivate = patch.allowPrivateTargets ?? before.allowPrivateTargets;
  if (patch.kubeconfig !== undefined) {
    const checked = await checkKubeconfig(patch.kubeconfig, allowPrivate);
    data.sealedKubeconfig = sealSecret(patch.kubeconfig, KUBECONFIG_AAD);
    data.server = checked.server;
    // Another management cluster: its versions and resourceVersions are not this one's.
    Object.assign(data, { resourceVersion: null, servedVersion: null });
    changes.kubeconfig = { action: "replaced", server: checked.server };
  }
  const json = (v: unknown) => JSON.stringify(v);
  const fields = [
    ["namespaces", patch.namespaces, before.namespaces, json],
    ["labelMappings", patch.labelMappings, before.labelMappings, json],
    ["fixedLabels", patch.fixedLabels, before.fixedLabels, json],
    ["agentOptions", patch.agentOptions, before.agentOptions, json],
  ] as const;
  for (const [key, value, was, encode] of fields) {
    if (value === undefined || encode(value) === was) continue;
    data[key] = encode(value);
    changes[key] = { from: JSON.parse(was) as unknown, to: value };
  }
  if (data.namespaces !== undefined) data.resourceVersion = null;
  const flags = [
    ["optInLabel", patch.optInLabel, before.optInLabel],
    ["requireApproval", patch.requireApproval, before.requireApproval],
    ["allowPrivateTargets", patch.allowPrivateTargets, before.allowPrivateTargets],
    ["enabled", patch.enabled, before.enabled],
  ] as const;
  for (const [key, value, was] of flags) {
    if (value === undefined || value === was) continue;
    data[key] = value;
    changes[key] = { from: was, to: value };
  }
  if (!Object.keys(changes).length) return view(before);
  const row = await db().$transaction(async (tx) => {
    const updated = await tx.capiSource.update({ where: { id }, data });
    // New rules apply to every cluster of the source on the importer's next pass.
    await tx.capiCluster.updateMany({ where: { sourceId: id }, data: { nextAttemptAt: new Date(), attempts: 0 } });
    await recordAudit(tx, actor, "clusterApiSource.update", { type: "clusterApiSource", id }, { name: before.name, ...changes });
    return updated;
  });
  return view(row);
}

/** Stops watching a source. Its imported clusters stay in the fleet, and nothing changes on the management cluster. */
export async function deleteSource(actor: Actor, id: string): Promise<void> {
  const before = await findRow(id);
  if (!before) throw new ApiError("not_found", "No Cluster API source with this id.");
  await db().$transaction(async (tx) => {
    const linked = await tx.capiCluster.count({ where: { sourceId: id, clusterId: { not: null } } });
    await tx.capiSource.delete({ where: { id } });
    await recordAudit(
      tx,
      actor,
      "clusterApiSource.delete",
      { type: "clusterApiSource", id },
      { name: before.name, server: before.server, importedClustersKept: linked },
    );
  });
}

/** The enabled sources with their kubeconfigs opened; one that does not open is returned as an error to show. */
export async function loadSources(): Promise<{ sources: LoadedSource[]; failed: { id: string; error: string }[] }> {
  const rows = await db().capiSource.findMany({ where: { enabled: true }, orderBy: { name: "asc" } });
  const sources: LoadedSource[] = [];
  const failed: { id: string; error: string }[] = [];
  for (const r of rows) {
    let text: string;
    try {
      text = openSecret(r.sealedKubeconfig, KUBECONFIG_AAD);
    } catch (err) {
      failed.push({ id: r.id, error: `The stored kubeconfig cannot be opened: ${errorText(err)}` });
      continue;
    }
    const checked = checkHubKubeconfig(text);
    if (!checked.ok) {
      failed.push({ id: r.id, error: `The stored kubeconfig is refused: it ${checked.problem}. Paste one again.` });
      continue;
    }
    const { ok: _ok, ...kubeconfig } = checked;
    sources.push({
      id: r.id,
      name: r.name,
      ...settingsOf(r),
      kubeconfig,
      revision: JSON.stringify([r.sealedKubeconfig, r.namespaces, r.optInLabel, r.allowPrivateTargets]),
    });
  }
  return { sources, failed };
}

/**
 * Records a source's error or its clearing. Its time is when the source started failing: a new
 * message while it still fails (another namespace's watch, say) keeps that time.
 */
export async function recordSourceError(id: string, error: string | null): Promise<void> {
  const r = await db().capiSource.findUnique({ where: { id }, select: { lastError: true } });
  if (!r || r.lastError === error) return;
  const data =
    error === null
      ? { lastError: null, lastErrorAt: null }
      : r.lastError
        ? { lastError: error }
        : { lastError: error, lastErrorAt: new Date() };
  await db().capiSource.updateMany({ where: { id }, data });
}
