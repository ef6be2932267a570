import "server-only";
import type { z } from "zod";
import type { BulkDeregistrationResult, bulkRetireNodePoolSchema } from "@/lib/contracts/clusters";
import { recordAudit } from "@/lib/server/audit/record-audit";
import type { Selector } from "@/lib/domain/selector";
import { actOnEach, guardedSelection, guardForAudit, type BulkCaller } from "@/lib/server/clusters/bulk-guard";
import { selectionForAudit } from "@/lib/server/clusters/select-clusters";
import { db } from "@/lib/server/db/client";
import { checkRetire, retireNodePool } from "./node-pools";

/**
 * POST /api/v1/clusters/bulk/retire-node-pool: retires the pool of that name on each selected
 * cluster, one at a time through the single retirement (each audited there, with its refusals:
 * no such pool, not Ready, the last active pool), behind the bulk drain's guard (bulk-guard.ts),
 * plus one audit entry for the bulk action. `dryRun` says which would retire and breaks the
 * selection down. Through a team (`scope`), only its clusters: what the filter matches beyond
 * them is counted as `leftOut`.
 */
export async function bulkRetireNodePool(
  caller: BulkCaller,
  input: z.output<typeof bulkRetireNodePoolSchema>,
  /** the caller's teams' selectors (lib/server/auth/authorize.ts); null: the whole fleet */
  scope: readonly Selector[] | null = null,
): Promise<BulkDeregistrationResult> {
  const selected = await guardedSelection(
    input,
    { verb: `retiring pool ${input.pool} on`, action: `retire pool ${input.pool} on` },
    caller,
    scope,
  );
  const { ids, guard } = selected;
  const now = new Date();
  const { results, started, breakdown } = await actOnEach(selected, async (id, actor) => {
    if (input.dryRun) await checkRetire(db(), id, input.pool, now);
    else await retireNodePool(actor, id, input.pool, { reason: input.reason ?? "" });
  });
  const leftOut = scope ? { leftOut: selected.leftOut } : {};
  if (input.dryRun)
    return {
      dryRun: true,
      matched: ids.length,
      ...leftOut,
      breakdown: await breakdown(),
      guard,
      started,
      results,
    };
  await recordAudit(db(), selected.bulkActor, "nodePool.bulk_retire", null, {
    ...selectionForAudit(input),
    ...guardForAudit(selected, scope),
    nodePool: input.pool,
    count: ids.length,
    retired: started,
    reason: input.reason,
    failed: results.filter((r) => !r.ok).map((r) => ({ id: r.id, name: r.name, error: r.error })),
  });
  return { dryRun: false, matched: ids.length, ...leftOut, started, results };
}
