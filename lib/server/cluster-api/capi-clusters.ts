import "server-only";
import type { CapiClusterView } from "@/lib/contracts/cluster-api";
import { describeStep, type CapiCondition, type CapiStep } from "@/lib/domain/cluster-api";
import type { Labels } from "@/lib/domain/labels";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";

// The CAPI Clusters seen on the sources, as the console shows them, and the two things a person
// does to one: retry a failed step now, and clear the do-not-import mark.

const include = { source: { select: { id: true, name: true, optInLabel: true } } } as const;
type Row = NonNullable<Awaited<ReturnType<typeof findRow>>>;
const findRow = (id: string) => db().capiCluster.findUnique({ where: { id }, include });

function view(r: Row): CapiClusterView {
  const step = r.step as CapiStep;
  return {
    id: r.id,
    source: { id: r.source.id, name: r.source.name },
    namespace: r.namespace,
    name: r.name,
    fleetName: r.fleetName,
    clusterId: r.clusterId,
    step,
    waitingFor:
      r.annotatedExcluded && !r.excludedAt && step === "excluded"
        ? `Not imported: the CAPI Cluster carries the do-not-import annotation (remove it there to import it).`
        : describeStep(step, r.source.optInLabel),
    error: r.stepError && r.stepErrorAt ? { message: r.stepError, at: r.stepErrorAt.toISOString() } : null,
    attempts: r.attempts,
    nextAttemptAt: r.stepError ? (r.nextAttemptAt?.toISOString() ?? null) : null,
    capiPhase: r.capiPhase,
    conditions: JSON.parse(r.conditions) as CapiCondition[],
    labels: JSON.parse(r.labels) as Labels,
    infrastructureProvider: r.infrastructureProvider,
    kubernetesVersion: r.kubernetesVersion,
    topologyClass: r.topologyClass,
    capiCreatedAt: r.capiCreatedAt?.toISOString() ?? null,
    deletingSince: r.deletingSince?.toISOString() ?? null,
    appliedAt: r.appliedAt?.toISOString() ?? null,
    excluded: r.excludedAt ? { at: r.excludedAt.toISOString(), by: r.excludedBy ?? "unknown" } : null,
    expectedClusterUid: r.expectedClusterUid,
  };
}

export async function listCapiClusters(query: { source?: string; step?: CapiStep }): Promise<{ items: CapiClusterView[] }> {
  const rows = await db().capiCluster.findMany({
    where: { ...(query.source ? { sourceId: query.source } : {}), ...(query.step ? { step: query.step } : {}) },
    include,
    orderBy: [{ sourceId: "asc" }, { namespace: "asc" }, { name: "asc" }],
    take: 2000,
  });
  return { items: rows.map(view) };
}

/** The Cluster API origin of a fleet cluster, or null. */
export async function capiOriginOf(clusterId: string): Promise<{ item: CapiClusterView | null }> {
  const row = await db().capiCluster.findFirst({ where: { clusterId }, include });
  return { item: row ? view(row) : null };
}

export async function retryCapiCluster(actor: Actor, id: string): Promise<CapiClusterView> {
  const row = await findRow(id);
  if (!row) throw new ApiError("not_found", "No CAPI Cluster with this id.");
  if (!row.stepError) throw new ApiError("invalid_transition", "Nothing to retry: its step has not failed.");
  await db().$transaction(async (tx) => {
    await tx.capiCluster.update({ where: { id }, data: { nextAttemptAt: new Date(), attempts: 0 } });
    await recordAudit(
      tx,
      actor,
      "clusterApiCluster.retry",
      { type: "clusterApiCluster", id },
      {
        source: row.source.name,
        capiCluster: `${row.namespace}/${row.name}`,
        step: row.step,
        error: row.stepError,
      },
    );
  });
  return view((await findRow(id))!);
}

/** Clears the do-not-import mark: the cluster is imported again on the next pass (and the annotation removed). */
export async function clearCapiMark(actor: Actor, id: string): Promise<CapiClusterView> {
  const row = await findRow(id);
  if (!row) throw new ApiError("not_found", "No CAPI Cluster with this id.");
  if (!row.excludedAt) {
    throw new ApiError(
      "invalid_transition",
      row.annotatedExcluded
        ? "The mark was not set by the fleet: remove the fleet-registry/do-not-import annotation on the CAPI Cluster itself."
        : "This CAPI Cluster carries no do-not-import mark.",
    );
  }
  await db().$transaction(async (tx) => {
    await tx.capiCluster.update({
      where: { id },
      data: { excludedAt: null, excludedBy: null, markSynced: false, nextAttemptAt: new Date(), attempts: 0 },
    });
    await recordAudit(
      tx,
      actor,
      "clusterApiCluster.clearMark",
      { type: "clusterApiCluster", id },
      {
        source: row.source.name,
        capiCluster: `${row.namespace}/${row.name}`,
        markedBy: row.excludedBy,
        markedAt: row.excludedAt!.toISOString(),
      },
    );
  });
  return view((await findRow(id))!);
}
