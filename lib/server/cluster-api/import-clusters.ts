import "server-only";
import {
  AGENT_SILENT_AFTER_MS,
  CAPI_FIELD_MANAGER,
  CAPI_GROUP,
  DELETED_BY_CAPI,
  DO_NOT_IMPORT_ANNOTATION,
  KUBECONFIG_SECRET_KEY,
  decideCapiStep,
  kubeconfigSecretName,
  mapLabels,
  retryDelayMs,
  type CapiStep,
} from "@/lib/domain/cluster-api";
import { agentManifestObjects } from "@/lib/domain/agent-manifest";
import { errorText } from "@/lib/domain/error-text";
import { checkHubKubeconfig } from "@/lib/domain/kubeconfig";
import type { Labels } from "@/lib/domain/labels";
import { tokenStatus } from "@/lib/domain/tokens";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { precreateClusterIn } from "@/lib/server/clusters/provision-cluster";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { fleetFacts } from "@/lib/server/fleet/fleet-facts";
import { removeDeletedCluster, startDeletionDeregistration } from "@/lib/server/lifecycle/deregistration";
import { log } from "@/lib/server/log";
import { incCounter } from "@/lib/server/metrics/registry";
import { getSettings } from "@/lib/server/settings/settings";
import { mintTokenIn } from "@/lib/server/tokens/mint-token";
import { KubeClient, KubeError, objectPath, resourceOf } from "./kube-client";
import { CAPI_RULE, TOKEN_AAD, openSecret, sealSecret, type LoadedSource } from "./sources";

// The importer: each CAPI Cluster row that is due (nextAttemptAt) is taken one step further, as
// decideCapiStep says (lib/domain/cluster-api.ts), by the instance that watches its source. A step
// that fails records why, in words the console shows, and is retried after a back-off; a step that
// succeeds is never done again (the manifest is applied once; the token is minted once, kept sealed
// until its agent registers, and reused by a retry). Everything is in the database between steps,
// so a restart at any point carries on where it stopped.

/** How often an applied cluster is looked at while its agent has not registered. */
const AWAIT_AGENT_EVERY_MS = 5_000;
/** A bound token's life; a join retried after it expires mints another. */
const TOKEN_TTL_SECONDS = 24 * 3600;
const DUE_PER_RUN = 50;

/** Who the audit log names for what the import does. */
export const capiActor = (source: { id: string; name: string }): Actor => ({
  type: "system",
  id: source.id,
  label: `cluster-api:${source.name}`,
});

/** A step's failure, in the words the console shows. */
class StepFailed extends Error {}

export type ImportContext = { source: LoadedSource; client: KubeClient; version: string | null };

type Row = NonNullable<Awaited<ReturnType<ReturnType<typeof db>["capiCluster"]["findUnique"]>>>;

/** Advances the due rows of the sources this instance watches. Returns how many were looked at. */
export async function importDueClusters(contexts: ReadonlyMap<string, ImportContext>, now = new Date()): Promise<number> {
  if (!contexts.size) return 0;
  const rows = await db().capiCluster.findMany({
    where: { sourceId: { in: [...contexts.keys()] }, nextAttemptAt: { lte: now } },
    orderBy: { nextAttemptAt: "asc" },
    take: DUE_PER_RUN,
  });
  for (const row of rows) {
    const ctx = contexts.get(row.sourceId)!;
    try {
      await advance(row, ctx);
    } catch (err) {
      // Unexpected (the database, a bug): logged, and the row tried again after a back-off.
      log.error("Cluster API import step failed", {
        source: ctx.source.name,
        cluster: `${row.namespace}/${row.name}`,
        error: errorText(err),
      });
      await fail(row, `unexpected error: ${errorText(err)}`).catch(() => {});
    }
  }
  return rows.length;
}

export const CAPI_STEP_FAILURES = "fleet_cluster_api_step_failures_total";
export const CAPI_JOINS = "fleet_cluster_api_joins_total";

async function fail(row: { id: string; attempts: number; step: string }, message: string) {
  incCounter(CAPI_STEP_FAILURES, "Cluster API import steps that failed (retried after a back-off), by step", { step: row.step });
  const attempts = row.attempts + 1;
  const now = Date.now();
  await db().capiCluster.updateMany({
    where: { id: row.id },
    data: { stepError: message, stepErrorAt: new Date(now), attempts, nextAttemptAt: new Date(now + retryDelayMs(attempts)) },
  });
}

/**
 * Records a step that waits for the next change of the CAPI Cluster (nothing due until then). Only
 * if the watch has not seen a change since the row was read: otherwise the watch has made the row
 * due again, and clearing that would lose the change.
 */
async function settle(row: Pick<Row, "id" | "seenAt">, step: CapiStep, data: Record<string, unknown> = {}) {
  await db().capiCluster.updateMany({
    where: { id: row.id, seenAt: row.seenAt },
    data: { step, attempts: 0, nextAttemptAt: null, ...data },
  });
}

async function advance(first: Row, ctx: ImportContext): Promise<void> {
  let row: Row | null = first;
  // A pre-created record whose control plane already answers joins in the same pass.
  for (let pass = 0; row && pass < 3; pass++) {
    if (!row.markSynced && (await syncMark(row, ctx))) row = (await db().capiCluster.findUnique({ where: { id: row.id } }))!;
    const moved = await step(row, ctx);
    if (!moved) return;
    row = await db().capiCluster.findUnique({ where: { id: row.id } });
  }
}

/** One decision and its action; true when the row moved on and should be looked at again now. */
async function step(row: Row, ctx: ImportContext): Promise<boolean> {
  const fleet = row.clusterId
    ? await db().cluster.findUnique({
        where: { id: row.clusterId },
        select: { phase: true, registeredAt: true, clusterUid: true, lastHeartbeatAt: true },
      })
    : null;
  const { requiredLabels } = await getSettings();
  const mapped = mapLabels(JSON.parse(row.labels) as Labels, ctx.source.labelMappings, ctx.source.fixedLabels, requiredLabels);
  const decision = decideCapiStep({
    gone: !!row.goneAt,
    deleting: !!row.deletingSince,
    optedIn: row.optedIn,
    excluded: !!row.excludedAt || row.annotatedExcluded,
    controlPlaneInitialized: row.controlPlaneInitialized,
    labelProblem: mapped.problem,
    fleet: fleet && { phase: fleet.phase, registered: !!fleet.registeredAt },
    appliedAt: row.appliedAt,
  });
  const actor = capiActor(ctx.source);
  switch (decision.action) {
    case "forget":
      await db().capiCluster.deleteMany({ where: { id: row.id } });
      return false;
    case "remove":
      await removeDeletedCluster(actor, row.clusterId!, DELETED_BY_CAPI);
      await db().capiCluster.deleteMany({ where: { id: row.id } });
      return false;
    case "deregister":
      await startDeletionDeregistration(actor, row.clusterId!, DELETED_BY_CAPI);
      await settle(row, "deleting", { stepError: null, sealedToken: null });
      return false;
    case "precreate":
      return precreate(row, ctx, mapped.labels);
    case "join":
      return join(row, ctx, mapped.labels);
  }
  if (decision.step === "applied") {
    const silentFor = Date.now() - row.appliedAt!.getTime();
    const stepError =
      silentFor >= AGENT_SILENT_AFTER_MS
        ? `agent not heartbeating after ${Math.floor(AGENT_SILENT_AFTER_MS / 60_000)} min: is the agent port (${(await fleetFacts()).agentUrl}) reachable from the workload cluster, and is its image pulled?`
        : null;
    await db().capiCluster.updateMany({
      where: { id: row.id },
      data: {
        step: "applied",
        stepError,
        stepErrorAt: stepError ? (row.stepErrorAt ?? new Date()) : null,
        nextAttemptAt: new Date(Date.now() + AWAIT_AGENT_EVERY_MS),
      },
    });
    return false;
  }
  if (decision.step === "joined") {
    const expected = row.expectedClusterUid;
    const mismatch =
      expected && fleet?.clusterUid && fleet.clusterUid !== expected
        ? `the agent that registered reports the kube-system UID ${fleet.clusterUid}, not ${expected} read from the workload cluster: another cluster may hold this token`
        : null;
    // The token's secret is not needed again: the agent holds its certificate now.
    await settle(row, "joined", { stepError: mismatch, stepErrorAt: mismatch ? new Date() : null, sealedToken: null });
    return false;
  }
  await settle(row, decision.step, {
    stepError: decision.step === "labels-refused" ? `not imported: ${mapped.problem}` : null,
    stepErrorAt: decision.step === "labels-refused" ? (row.stepErrorAt ?? new Date()) : null,
  });
  return false;
}

/**
 * The Provisioning record, in one transaction with the row's link. The row is claimed by a
 * conditional update (still unlinked and unmarked), which a removal's mark, written in the removal's
 * transaction, makes fail: a removed cluster is never brought back by a watch event in flight.
 */
async function precreate(row: Row, ctx: ImportContext, labels: Labels): Promise<boolean> {
  const { source } = ctx;
  try {
    const created = await inTransaction(async (tx, afterCommit) => {
      const claimed = await tx.capiCluster.updateMany({
        where: { id: row.id, clusterId: null, excludedAt: null },
        data: { step: "provisioning" },
      });
      if (claimed.count !== 1) return false;
      const clusterId = await precreateClusterIn(tx, afterCommit, capiActor(source), {
        name: row.fleetName,
        description: `Cluster API: ${row.namespace}/${row.name} on ${source.name}`,
        labels,
        reason: `pre-created by Cluster API (${source.name}: ${row.namespace}/${row.name})`,
        audit: { source: source.name, capiCluster: `${row.namespace}/${row.name}` },
      });
      await tx.capiCluster.update({
        where: { id: row.id },
        data: { clusterId, stepError: null, stepErrorAt: null, attempts: 0, nextAttemptAt: new Date() },
      });
      return true;
    });
    return created;
  } catch (err) {
    if (err instanceof ApiError && err.code === "conflict") {
      await fail(
        row,
        `a cluster named ${row.fleetName} already exists in the fleet (not imported from this source): rename or remove it`,
      );
      return false;
    }
    throw err;
  }
}

/** The bound token the manifest carries: the one kept for this row while it is usable, else a new one. */
async function boundToken(row: Row, ctx: ImportContext, labels: Labels): Promise<string> {
  if (row.tokenId && row.sealedToken) {
    const token = await db().registrationToken.findUnique({ where: { id: row.tokenId } });
    // An hour's margin: the agent still has to pull its image and start.
    const soon = new Date(Date.now() + 3600_000);
    if (token && token.clusterId === row.clusterId && tokenStatus(token, soon) === "active")
      return openSecret(row.sealedToken, TOKEN_AAD);
  }
  return inTransaction(async (tx) => {
    const minted = await mintTokenIn(tx, capiActor(ctx.source), {
      name: `cluster-api ${row.fleetName}`,
      description: `Joins ${row.namespace}/${row.name} from the Cluster API source ${ctx.source.name}.`,
      ttlSeconds: TOKEN_TTL_SECONDS,
      maxClusters: 1,
      clusterId: row.clusterId!,
      fixedLabels: labels,
      requireApproval: ctx.source.requireApproval,
    });
    await tx.capiCluster.update({
      where: { id: row.id },
      data: { tokenId: minted.id, sealedToken: sealSecret(minted.token, TOKEN_AAD) },
    });
    return minted.token;
  });
}

/**
 * Reads the workload cluster's kubeconfig from its Secret on the management cluster and applies the
 * agent's manifest there with server-side apply. Any failure is the row's error and retried later.
 */
async function join(row: Row, ctx: ImportContext, labels: Labels): Promise<boolean> {
  const { source, client } = ctx;
  const secretName = kubeconfigSecretName(row.name);
  let workload: KubeClient | null = null;
  try {
    let secret;
    try {
      secret = await client.get(
        `/api/v1/namespaces/${encodeURIComponent(row.namespace)}/secrets/${encodeURIComponent(secretName)}`,
      );
    } catch (err) {
      if (err instanceof KubeError && err.reason === "not_found")
        throw new StepFailed(`kubeconfig Secret ${row.namespace}/${secretName} not found`);
      if (err instanceof KubeError)
        throw new StepFailed(
          err.status
            ? `reading the kubeconfig Secret ${row.namespace}/${secretName} refused: ${err.message}`
            : `the kubeconfig Secret ${row.namespace}/${secretName} could not be read: ${err.message}`,
        );
      throw err;
    }
    const encoded = ((secret.data ?? {}) as Record<string, string>)[KUBECONFIG_SECRET_KEY];
    if (!encoded) throw new StepFailed(`kubeconfig Secret ${row.namespace}/${secretName} has no "${KUBECONFIG_SECRET_KEY}" key`);
    const checked = checkHubKubeconfig(Buffer.from(encoded, "base64").toString("utf8"));
    if (!checked.ok) throw new StepFailed(`the workload cluster's kubeconfig ${checked.problem}`);
    const { ok: _ok, ...kubeconfig } = checked;
    workload = new KubeClient(kubeconfig, source.allowPrivateTargets, CAPI_RULE);

    // The cluster's own identity, for comparing with what its agent reports (a token used elsewhere).
    const kubeSystem = await workload.get("/api/v1/namespaces/kube-system").catch(() => null);
    const expectedClusterUid = ((kubeSystem?.metadata ?? {}) as { uid?: string }).uid ?? null;

    const token = await boundToken(row, ctx, labels);
    const facts = await fleetFacts();
    const objects = agentManifestObjects({
      agentUrl: facts.agentUrl,
      caFingerprint: facts.caFingerprint,
      agentImage: source.agentOptions.agentImage ?? facts.agentImage,
      clusterName: row.fleetName,
      labels: {},
      token,
      httpsProxy: source.agentOptions.httpsProxy,
      noProxy: source.agentOptions.noProxy,
    });
    for (const object of objects) {
      const path = objectPath(object as Parameters<typeof objectPath>[0]);
      try {
        await workload.apply(path, object, CAPI_FIELD_MANAGER);
      } catch (err) {
        if (!(err instanceof KubeError)) throw err;
        const what = err.status ? `${err.status} on ${resourceOf(path)}` : err.message;
        throw new StepFailed(
          `apply refused: ${what}${err.status === 403 ? " (the kubeconfig's user may not create the agent's objects)" : ""}`,
        );
      }
    }
    await db().capiCluster.updateMany({
      where: { id: row.id },
      data: {
        step: "applied",
        appliedAt: new Date(),
        expectedClusterUid,
        stepError: null,
        stepErrorAt: null,
        attempts: 0,
        nextAttemptAt: new Date(Date.now() + AWAIT_AGENT_EVERY_MS),
      },
    });
    incCounter(CAPI_JOINS, "Cluster API clusters whose agent manifest was applied");
    log.info("Cluster API cluster joined: agent applied", {
      source: source.name,
      cluster: `${row.namespace}/${row.name}`,
      fleetName: row.fleetName,
    });
    return false;
  } catch (err) {
    if (err instanceof StepFailed) {
      await db().capiCluster.updateMany({ where: { id: row.id }, data: { step: "joining" } });
      await fail(row, err.message);
      return false;
    }
    if (err instanceof KubeError) {
      await db().capiCluster.updateMany({ where: { id: row.id }, data: { step: "joining" } });
      await fail(row, `the workload cluster: ${err.message}`);
      return false;
    }
    throw err;
  } finally {
    workload?.close();
  }
}

/**
 * Writes the do-not-import mark's annotation as the row says (set, or cleared when an admin cleared
 * the mark), by server-side apply with our field manager: clearing removes only our annotation. A
 * Cluster already gone needs nothing. A failure waits for the next pass; the DB's mark holds meanwhile.
 */
async function syncMark(row: Row, ctx: ImportContext): Promise<boolean> {
  const version = ctx.version;
  if (!version) return false;
  const path = `/apis/${CAPI_GROUP}/${version}/namespaces/${encodeURIComponent(row.namespace)}/clusters/${encodeURIComponent(row.name)}`;
  const annotations = row.excludedAt
    ? {
        [DO_NOT_IMPORT_ANNOTATION]: `removed from the fleet registry by ${row.excludedBy ?? "someone"} at ${row.excludedAt.toISOString()}`,
      }
    : {};
  try {
    await ctx.client.apply(
      path,
      {
        apiVersion: `${CAPI_GROUP}/${version}`,
        kind: "Cluster",
        metadata: { name: row.name, namespace: row.namespace, annotations },
      },
      CAPI_FIELD_MANAGER,
    );
  } catch (err) {
    if (!(err instanceof KubeError) || err.reason !== "not_found") {
      log.warn("Cluster API do-not-import annotation not written yet", {
        cluster: `${row.namespace}/${row.name}`,
        error: errorText(err),
      });
      return false;
    }
  }
  await db().capiCluster.updateMany({ where: { id: row.id }, data: { markSynced: true } });
  return true;
}
