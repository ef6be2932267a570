import "server-only";
import type { RegistrationRequest, RegistrationRequestState } from "@/lib/contracts/registration-requests";
import type { Labels } from "@/lib/domain/labels";
import { db, type Db, type Tx } from "@/lib/server/db/client";

export type RequestRow = NonNullable<Awaited<ReturnType<Db["registrationRequest"]["findUnique"]>>>;

type IdName = { id: string; name: string };

/** The request as the API shows it: never the CSR or the key hash. */
export function requestView(r: RequestRow, sameClusterAs: IdName[] = []): RegistrationRequest {
  return {
    id: r.id,
    name: r.name,
    state: r.state as RegistrationRequestState,
    labels: JSON.parse(r.labels) as Labels,
    // A token pruned since keeps its name here; its id is gone with it.
    token: { id: r.tokenId ?? "", name: r.tokenName },
    sourceAddress: r.sourceAddress,
    caFingerprint: r.caFingerprint,
    apiServerUrl: r.apiServerUrl,
    agentVersion: r.agentVersion,
    kubernetesVersion: r.kubernetesVersion,
    clusterUid: r.clusterUid,
    sameClusterAs,
    firstSeenAt: r.firstSeenAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
    decidedAt: r.decidedAt?.toISOString() ?? null,
    decidedBy: r.decidedBy,
    reason: r.reason,
    clusterId: r.clusterId,
  };
}

/**
 * For each request, the clusters in the fleet (not being deregistered) that reported its
 * clusterUid: probably the same Kubernetes cluster registering twice. Its own cluster (an approved
 * request's) is not another one.
 */
export async function sameClusterAs(rows: readonly RequestRow[], client: Db | Tx = db()): Promise<Map<string, IdName[]>> {
  const uids = [...new Set(rows.flatMap((r) => (r.clusterUid ? [r.clusterUid] : [])))];
  const out = new Map<string, IdName[]>();
  if (!uids.length) return out;
  const clusters = await client.cluster.findMany({
    where: { clusterUid: { in: uids }, phase: { not: "Deregistration" } },
    select: { id: true, name: true, clusterUid: true },
    orderBy: { name: "asc" },
  });
  for (const r of rows) {
    if (!r.clusterUid) continue;
    out.set(
      r.id,
      clusters.filter((c) => c.clusterUid === r.clusterUid && c.id !== r.clusterId).map((c) => ({ id: c.id, name: c.name })),
    );
  }
  return out;
}

export async function viewWithSameCluster(r: RequestRow): Promise<RegistrationRequest> {
  return requestView(r, (await sameClusterAs([r])).get(r.id) ?? []);
}
