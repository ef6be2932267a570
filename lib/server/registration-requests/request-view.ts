import "server-only";
import type { RegistrationRequest, RegistrationRequestState } from "@/lib/contracts/registration-requests";
import { versionFlags, type CompatibilityMatrix } from "@/lib/domain/compatibility";
import type { Labels } from "@/lib/domain/labels";
import { keyFingerprint } from "@/lib/domain/registration-approval";
import { matchesSelector, parseSelector, type Selector } from "@/lib/domain/selector";
import { withinScope } from "@/lib/domain/teams";
import { db, type Db, type Tx } from "@/lib/server/db/client";
import { getMatrix } from "@/lib/server/versions/compatibility";

export type RequestRow = NonNullable<Awaited<ReturnType<Db["registrationRequest"]["findUnique"]>>>;

type IdName = { id: string; name: string };

/** A group's parsed selector, to see which groups a request would join. */
export type GroupSelector = IdName & { selector: Selector };

/** What a request's view adds from other rows: its same-cluster peers, its name's pending count, the matrix and the groups. */
type Context = { sameClusterAs: IdName[]; pendingForName: number; matrix: CompatibilityMatrix; groups: readonly GroupSelector[] };

/** The request as the API shows it: never the CSR; the key as its fingerprint. */
export function requestView(r: RequestRow, context: Context): RegistrationRequest {
  const labels = JSON.parse(r.labels) as Labels;
  return {
    id: r.id,
    name: r.name,
    state: r.state as RegistrationRequestState,
    labels,
    // A token pruned since keeps its name here; its id is gone with it.
    token: { id: r.tokenId ?? "", name: r.tokenName },
    sourceAddress: r.sourceAddress,
    keyFingerprint: keyFingerprint(r.keyHash),
    pendingForName: context.pendingForName,
    caFingerprint: r.caFingerprint,
    apiServerUrl: r.apiServerUrl,
    agentVersion: r.agentVersion,
    kubernetesVersion: r.kubernetesVersion,
    clusterUid: r.clusterUid,
    sameClusterAs: context.sameClusterAs,
    versionFlags: versionFlags(context.matrix, r.agentVersion, r.kubernetesVersion),
    joinsGroups: context.groups.filter((g) => matchesSelector(labels, g.selector)).map(({ id, name }) => ({ id, name })),
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
 * request's) is not another one. `scope`: only the clusters a team member sees (null: all).
 */
export async function sameClusterAs(
  rows: readonly RequestRow[],
  client: Db | Tx = db(),
  scope: readonly Selector[] | null = null,
): Promise<Map<string, IdName[]>> {
  const uids = [...new Set(rows.flatMap((r) => (r.clusterUid ? [r.clusterUid] : [])))];
  const out = new Map<string, IdName[]>();
  if (!uids.length) return out;
  const found = await client.cluster.findMany({
    where: { clusterUid: { in: uids }, phase: { not: "Deregistration" } },
    select: { id: true, name: true, clusterUid: true, labels: { select: { key: true, value: true } } },
    orderBy: { name: "asc" },
  });
  const clusters = found.filter((c) => withinScope(scope, Object.fromEntries(c.labels.map((l) => [l.key, l.value]))));
  for (const r of rows) {
    if (!r.clusterUid) continue;
    out.set(
      r.id,
      clusters.filter((c) => c.clusterUid === r.clusterUid && c.id !== r.clusterId).map((c) => ({ id: c.id, name: c.name })),
    );
  }
  return out;
}

/**
 * How many requests are pending for each of these requests' names: more than one is a choice
 * between keys. `scope`: only those a team member sees count (the others are not theirs to weigh).
 */
async function pendingByName(rows: readonly RequestRow[], scope: readonly Selector[] | null): Promise<Map<string, number>> {
  const names = [...new Set(rows.map((r) => r.name))];
  if (!names.length) return new Map();
  const where = { name: { in: names }, state: "pending" };
  if (!scope) {
    const groups = await db().registrationRequest.groupBy({ by: ["name"], where, _count: { _all: true } });
    return new Map(groups.map((g) => [g.name, g._count._all]));
  }
  const counts = new Map<string, number>();
  for (const r of await db().registrationRequest.findMany({ where, select: { name: true, labels: true } }))
    if (withinScope(scope, JSON.parse(r.labels) as Labels)) counts.set(r.name, (counts.get(r.name) ?? 0) + 1);
  return counts;
}

/** Every cluster group with its selector parsed (a selector that no longer parses matches nothing). */
export async function groupSelectors(client: Db | Tx = db()): Promise<GroupSelector[]> {
  const groups = await client.clusterGroup.findMany({
    select: { id: true, name: true, selector: true },
    orderBy: { name: "asc" },
  });
  return groups.flatMap((g) => {
    try {
      return [{ id: g.id, name: g.name, selector: parseSelector(g.selector) }];
    } catch {
      return [];
    }
  });
}

/** The views of these requests, with what each adds from other rows; `scope` bounds those to a team member's. */
export async function requestViews(
  rows: readonly RequestRow[],
  scope: readonly Selector[] | null = null,
): Promise<RegistrationRequest[]> {
  if (!rows.length) return [];
  const [same, pending, { matrix }, groups] = await Promise.all([
    sameClusterAs(rows, db(), scope),
    pendingByName(rows, scope),
    getMatrix(),
    groupSelectors(),
  ]);
  return rows.map((r) =>
    requestView(r, { sameClusterAs: same.get(r.id) ?? [], pendingForName: pending.get(r.name) ?? 0, matrix, groups }),
  );
}

export async function viewOf(r: RequestRow, scope: readonly Selector[] | null = null): Promise<RegistrationRequest> {
  const [view] = await requestViews([r], scope);
  return view!;
}
