import "server-only";
import type { z } from "zod";
import type { BulkDeregistrationResult, bulkRetireNodePoolSchema } from "@/lib/contracts/clusters";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import type { Role } from "@/lib/domain/roles";
import { actOnEach, guardedSelection, guardForAudit } from "@/lib/server/clusters/bulk-guard";
import { selectionForAudit } from "@/lib/server/clusters/select-clusters";
import { db } from "@/lib/server/db/client";
import { checkRetire, retireNodePool } from "./node-pools";

/**
 * POST /api/v1/clusters/bulk/retire-node-pool: retires the pool of that name on each selected
 * cluster, one at a time through the single retirement (each audited there, with its refusals:
 * no such pool, not Ready, the last active pool), behind the bulk drain's guard (bulk-guard.ts),
 * plus one audit entry for the bulk action. `dryRun` says which would retire and breaks the
 * selection down.
 */
export async function bulkRetireNodePool(
  principal: { actor: Actor; role: Role | null },
  input: z.output<typeof bulkRetireNodePoolSchema>,
): Promise<BulkDeregistrationResult> {
  const { actor, role } = principal;
  const { ids, guard } = await guardedSelection(
    input,
    { verb: `retiring pool ${input.pool} on`, action: `retire pool ${input.pool} on` },
    role,
  );
  const now = new Date();
  const { results, started, breakdown } = await actOnEach(ids, async (id) => {
    if (input.dryRun) await checkRetire(db(), id, input.pool, now);
    else await retireNodePool(actor, id, input.pool, { reason: input.reason ?? "" });
  });
  if (input.dryRun)
    return {
      dryRun: true,
      matched: ids.length,
      breakdown: await breakdown(),
      guard,
      started,
      results,
    };
  await recordAudit(db(), actor, "nodePool.bulk_retire", null, {
    ...selectionForAudit(input),
    ...guardForAudit(guard),
    nodePool: input.pool,
    count: ids.length,
    retired: started,
    reason: input.reason,
    failed: results.filter((r) => !r.ok).map((r) => ({ id: r.id, name: r.name, error: r.error })),
  });
  return { dryRun: false, matched: ids.length, started, results };
}
