import "server-only";
import type { ClusterEventRow } from "@/lib/domain/cluster-events";
import type { Phase } from "@/lib/domain/status";
import type { Tx } from "@/lib/server/db/client";
import type { AfterCommit } from "@/lib/server/db/transaction";
import { asSqlTx, columns, insertInto, list, lockRowsInIdOrder, sql, type Sql, type SqlTx } from "@/lib/server/db/sql";
import { publish, type FleetEvent } from "@/lib/server/events/bus";
import { STATUS_OVERRIDE_PHASES } from "@/lib/domain/status";
import { invalidateHeartbeatContext } from "@/lib/server/heartbeats/heartbeat-context";
import { enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";

export type PhaseChange = {
  clusterId: string;
  clusterName: string;
  /**
   * The phase the cluster must be in: the move is conditional on it, so two writers racing move it
   * once. null: the caller has just created the cluster in `to` (nothing to move, the event is
   * still written). Equal to `to`: the phase stays, the event records why (a re-registration).
   */
  from: Phase | null;
  /** "Removed": the caller deletes the cluster in the same transaction. */
  to: Phase | "Removed";
  reason: string;
  at: Date;
  /** "Removed": the cluster's labels, read before it was deleted (webhook scopes and payloads). */
  labels?: Record<string, string>;
  /**
   * What subscribers hear after commit: by default cluster.updated (cluster.removed for
   * "Removed"); an event of the caller's, or false when the caller publishes something more
   * specific itself (a status change).
   */
  publish?: FleetEvent | false;
};

/**
 * The one way a cluster's lifecycle phase changes, for one cluster or a wave: the conditional
 * moves (one statement per distinct from/to/at, so a wave is one), the events of those that moved
 * (one insert), all in the caller's transaction; then after commit the heartbeat answers' cache
 * (when a phase overrides status) and the live stream. Returns the changes made: a cluster no
 * longer in `from` (another writer moved it first) is left out, with nothing written for it.
 */
export async function changePhases(
  tx: Tx | SqlTx,
  afterCommit: AfterCommit,
  changes: readonly PhaseChange[],
): Promise<PhaseChange[]> {
  const run = asSqlTx(tx);
  const moved = await moveConditionally(run, changes.filter(needsMove));
  const made = changes.filter((c) => !needsMove(c) || moved.has(c.clusterId));
  if (!made.length) return [];
  await run.run(insertInto("ClusterEvent", made.map(phaseEventRow)));
  for (const c of made) {
    // Subscribers hear of a removal from the transaction that removes (docs/integrations/webhooks.md).
    if (c.to === "Removed") await enqueueRemoval(run, c);
    afterPhaseChange(afterCommit, c);
  }
  return made;
}

/**
 * The phase event of a cluster the caller is creating in `change.to` (`from` null: nothing moves),
 * as an insert for the caller to run in its own statement, with the after-commit work registered:
 * what changePhase would write for it, without a round trip of its own.
 */
export function newClusterPhase(afterCommit: AfterCommit, change: PhaseChange & { from: null }): Sql {
  afterPhaseChange(afterCommit, change);
  return insertInto("ClusterEvent", [phaseEventRow(change)]);
}

/** changePhases for one cluster; false, having written nothing, when it was not in `from`. */
export async function changePhase(tx: Tx | SqlTx, afterCommit: AfterCommit, change: PhaseChange): Promise<boolean> {
  return (await changePhases(tx, afterCommit, [change])).length === 1;
}

const needsMove = (c: PhaseChange) => c.from !== null && c.from !== c.to && c.to !== "Removed";

const cluster = columns("Cluster");

/** The ids moved: `UPDATE ... WHERE phase = from AND id IN (...)` per distinct from/to/at. */
async function moveConditionally(tx: SqlTx, changes: readonly PhaseChange[]): Promise<Set<string>> {
  const moved = new Set<string>();
  const groups = new Map<string, PhaseChange[]>();
  for (const c of changes) {
    const key = JSON.stringify([c.from, c.to, c.at.getTime()]);
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  for (const group of groups.values()) {
    const { from, to, at } = group[0]!;
    const ids = group.map((c) => c.clusterId).sort();
    await lockRowsInIdOrder(tx, "Cluster", ids);
    const rows = await tx.rows<{ id: string }>(
      sql`UPDATE ${cluster.table} SET ${cluster("phase")} = ${to}, ${cluster("phaseChangedAt")} = ${at}, ${cluster("updatedAt")} = ${at}
          WHERE ${cluster("phase")} = ${from} AND ${cluster("id")} IN (${list(ids)}) RETURNING ${cluster("id")}`,
    );
    for (const r of rows) moved.add(r.id);
  }
  return moved;
}

async function enqueueRemoval(tx: SqlTx, { clusterId, clusterName, from, reason, at, labels }: PhaseChange) {
  // The outbox is written through Prisma's models: a removal always runs in Prisma's transaction.
  if (!tx.prisma) throw new Error("a removal is written in Prisma's transaction");
  await enqueueWebhookEvent(tx.prisma, {
    type: "cluster.removed",
    cluster: { id: clusterId, name: clusterName },
    ...(labels ? { labels } : {}),
    data: { from, reason },
    occurredAt: at,
  });
}

function phaseEventRow({ clusterId, clusterName, from, to, reason, at }: PhaseChange): ClusterEventRow {
  return { clusterId, clusterName, kind: "phase", fromValue: from, toValue: to, reason, at };
}

const overridesStatus = (phase: string | null) => phase !== null && (STATUS_OVERRIDE_PHASES as readonly string[]).includes(phase);

function afterPhaseChange(afterCommit: AfterCommit, change: PhaseChange) {
  const { clusterId, clusterName, from, to, at } = change;
  // Heartbeat answers carry only the phases that override status: registrations and upgrades
  // (thousands a minute in a busy fleet) leave the shared snapshot alone.
  if (overridesStatus(from) || overridesStatus(to)) afterCommit(invalidateHeartbeatContext);
  const event =
    change.publish ??
    ({
      type: to === "Removed" ? "cluster.removed" : "cluster.updated",
      clusterId,
      name: clusterName,
      at: at.toISOString(),
    } as const);
  if (event) afterCommit(() => publish(event));
}
