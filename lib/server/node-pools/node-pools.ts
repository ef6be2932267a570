import "server-only";
import type { Selector } from "@/lib/domain/selector";
import { clusterIdsInScope } from "@/lib/server/clusters/cluster-list-sql";
import type { ClusterEventRow } from "@/lib/domain/cluster-events";
import { ApiError } from "@/lib/server/api/errors";
import { db, type Tx } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { createDirective } from "@/lib/server/agent-port/directives";
import { inTransaction } from "@/lib/server/db/transaction";
import { storedCapabilities } from "@/lib/server/heartbeats/agent-capabilities";
import { nodeActionsProblem, retirePoolRefusal } from "@/lib/domain/node-actions";
import { healthStatus } from "@/lib/domain/status";
import type { RetireNodePoolInput } from "@/lib/contracts/clusters";
import { getSettings } from "@/lib/server/settings/settings";

/**
 * The pool to retire, or why it may not be: no such pool or cluster (not_found), already retiring
 * (conflict), the cluster not Ready or this its last active pool (retirePoolRefusal), an agent
 * that lists its capabilities without node actions (incompatible_agent: it would never be sent
 * the directive (docs/protocol.md), so the pool would show Retiring forever). One that lists none
 * is sent it and answers with a failed ack if it cannot.
 */
export async function checkRetire(
  reader: Pick<Tx, "nodePool" | "cluster" | "directive">,
  clusterId: string,
  pool: string,
  now: Date,
) {
  const [{ notReadyThresholdSeconds }, capabilities] = await Promise.all([getSettings(), storedCapabilities(clusterId)]);
  const p = await reader.nodePool.findUnique({
    where: { clusterId_name: { clusterId, name: pool } },
    include: {
      cluster: {
        select: {
          name: true,
          phase: true,
          lastHeartbeatAt: true,
          apiServerHealth: true,
          nodePools: { select: { name: true, state: true } },
        },
      },
    },
  });
  if (!p) {
    const cluster = await reader.cluster.findUnique({ where: { id: clusterId }, select: { id: true } });
    throw new ApiError("not_found", cluster ? "No such node pool on this cluster." : "No cluster with this id.");
  }
  // A drain the agent refused or gave up on (its directive closed as failed) may be asked again,
  // e.g. allowing what it refused to lose; one still under way may not.
  if (p.state === "Retiring" && (await drainUnderWay(reader, clusterId, pool)))
    throw new ApiError("conflict", "This node pool is already being retired.");
  const refusal = retirePoolRefusal(
    { health: healthStatus(p.cluster, now, notReadyThresholdSeconds) },
    p.cluster.nodePools,
    pool,
  );
  if (refusal) throw new ApiError(refusal.code, refusal.message);
  const unavailable = nodeActionsProblem(capabilities);
  if (unavailable) throw new ApiError("incompatible_agent", unavailable, { capabilities });
  return p;
}

/**
 * Retires a node pool: a `drainNodePool` directive goes to the agent and the pool shows
 * Retiring; when the agent stops reporting the pool (drained), the heartbeat writer removes it.
 */
export async function retireNodePool(actor: Actor, clusterId: string, pool: string, input: RetireNodePoolInput) {
  const now = new Date();
  const { reason } = input;
  await inTransaction(async (tx, afterCommit) => {
    const p = await checkRetire(tx, clusterId, pool, now);
    await tx.nodePool.update({ where: { id: p.id }, data: { state: "Retiring" } });
    const options = {
      ...(input.force ? { force: true } : {}),
      ...(input.deleteEmptyDirData ? { deleteEmptyDirData: true } : {}),
    };
    const directiveId = await createDirective(tx, afterCommit, {
      clusterId,
      type: "drainNodePool",
      payload: { nodePool: pool, ...options },
    });
    const event: ClusterEventRow = {
      clusterId,
      clusterName: p.cluster.name,
      kind: "nodePool",
      fromValue: p.state,
      toValue: "Retiring",
      reason: `${pool}: ${reason}`,
      at: now,
    };
    await tx.clusterEvent.create({ data: event });
    await recordAudit(
      tx,
      actor,
      "nodePool.retire",
      { type: "cluster", id: clusterId },
      { cluster: p.cluster.name, nodePool: pool, nodes: p.nodeCount, readyNodes: p.readyNodes, directiveId, reason, ...options },
    );
  });
}

/** A drainNodePool for this pool not yet acknowledged (done or failed). */
async function drainUnderWay(tx: Pick<Tx, "directive">, clusterId: string, pool: string): Promise<boolean> {
  const open = await tx.directive.findMany({
    where: { clusterId, type: "drainNodePool", ackedAt: null },
    select: { payload: true },
  });
  return open.some((d) => (JSON.parse(d.payload) as { nodePool?: unknown }).nodePool === pool);
}

type Stale = { clusterIds: Set<string>; pools: number; nodes: number; asOf: number | null };
type Row = {
  key: string;
  pools: number;
  nodes: number;
  readyNodes: number;
  cpuCores: number;
  memoryGiB: number;
  clusterIds: Set<string>;
  notReady: Stale;
};

const stale = (): Stale => ({ clusterIds: new Set(), pools: 0, nodes: 0, asOf: null });
const staleReply = (s: Stale) => ({
  clusters: s.clusterIds.size,
  pools: s.pools,
  nodes: s.nodes,
  asOf: s.asOf === null ? null : new Date(s.asOf).toISOString(),
});

/**
 * Fleet capacity grouped by a label (region, env, ...), with kubelet versions and instance types.
 * Pools of NotReady clusters (as the status sweep last recorded it) are counted apart, "as of"
 * their clusters' oldest last heartbeat: their figures are the last the agent sent, not live.
 */
export async function capacity(
  by: string,
  /** the caller's teams' selectors: only their clusters' pools; null: the whole fleet */
  scope: readonly Selector[] | null = null,
) {
  const inScope = scope ? await clusterIdsInScope(scope) : null;
  const all = await db().nodePool.findMany({
    select: {
      clusterId: true,
      nodeCount: true,
      readyNodes: true,
      cpuCores: true,
      memoryGiB: true,
      kubeletVersion: true,
      instanceType: true,
      state: true,
      cluster: { select: { status: true, lastHeartbeatAt: true, labels: { where: { key: by }, select: { value: true } } } },
    },
  });
  const pools = inScope ? all.filter((p) => inScope.has(p.clusterId)) : all;
  const rows = new Map<string, Row>();
  const kubelets = new Map<string, number>();
  const types = new Map<string, number>();
  const fleetStale = stale();
  for (const p of pools) {
    const key = p.cluster.labels[0]?.value ?? "(none)";
    const r = rows.get(key) ?? {
      key,
      pools: 0,
      nodes: 0,
      readyNodes: 0,
      cpuCores: 0,
      memoryGiB: 0,
      clusterIds: new Set(),
      notReady: stale(),
    };
    rows.set(key, r);
    if (p.cluster.status === "NotReady") {
      const seen = p.cluster.lastHeartbeatAt?.getTime() ?? null;
      for (const s of [r.notReady, fleetStale]) {
        s.clusterIds.add(p.clusterId);
        s.pools++;
        s.nodes += p.nodeCount;
        if (seen !== null && (s.asOf === null || seen < s.asOf)) s.asOf = seen;
      }
      continue;
    }
    r.clusterIds.add(p.clusterId);
    r.pools++;
    r.nodes += p.nodeCount;
    r.readyNodes += p.readyNodes;
    r.cpuCores += p.cpuCores ?? 0;
    r.memoryGiB += p.memoryGiB ?? 0;
    if (p.kubeletVersion) kubelets.set(p.kubeletVersion, (kubelets.get(p.kubeletVersion) ?? 0) + p.nodeCount);
    if (p.instanceType) types.set(p.instanceType, (types.get(p.instanceType) ?? 0) + p.nodeCount);
  }
  return {
    by,
    rows: [...rows.values()]
      .map(({ clusterIds, notReady, ...r }) => ({ ...r, clusters: clusterIds.size, notReady: staleReply(notReady) }))
      .sort((a, b) => b.nodes - a.nodes || b.notReady.nodes - a.notReady.nodes),
    notReady: staleReply(fleetStale),
    kubeletVersions: [...kubelets].map(([version, nodes]) => ({ version, nodes })).sort((a, b) => b.nodes - a.nodes),
    instanceTypes: [...types].map(([type, nodes]) => ({ type, nodes })).sort((a, b) => b.nodes - a.nodes),
    retiring: pools.filter((p) => p.state === "Retiring").length,
  };
}
