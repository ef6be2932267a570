import "server-only";
import type { z } from "zod";
import type { BulkDeregistrationResult, bulkDeregistrationSchema } from "@/lib/contracts/clusters";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { actOnEach, guardedSelection } from "@/lib/server/clusters/bulk-guard";
import { selectionForAudit } from "@/lib/server/clusters/select-clusters";
import { db } from "@/lib/server/db/client";
import { actOnDeregistration, getDeregistration } from "./deregistration";

/**
 * POST /api/v1/clusters/bulk/deregistration: the wizard's first step ("start": drain) for each
 * selected cluster, one at a time through the same service as the wizard (each start audited
 * there), plus one audit entry for the bulk action with the selection and the outcome. A cluster
 * that cannot start (already draining, removed meanwhile) is reported, not fatal. `dryRun` says
 * which would start and breaks the selection down; the real run needs the count the person
 * confirmed to equal the selection's count now, so a filter that grew meanwhile asks again.
 */
export async function bulkStartDeregistration(
  actor: Actor,
  input: z.output<typeof bulkDeregistrationSchema>,
): Promise<BulkDeregistrationResult> {
  const ids = await guardedSelection(input, "draining");
  const { results, started, breakdown } = await actOnEach(ids, async (id) => {
    if (!input.dryRun) {
      await actOnDeregistration(actor, id, { action: "start", ...(input.reason ? { reason: input.reason } : {}) });
      return;
    }
    const state = await getDeregistration(id);
    if (!state.availableActions.includes("start"))
      return { error: "invalid_transition", message: `Its wizard is at "${state.step}".` };
  });
  if (input.dryRun)
    return {
      dryRun: true,
      matched: ids.length,
      breakdown: await breakdown(),
      started,
      results,
    };
  await recordAudit(db(), actor, "cluster.deregistration.bulk_start", null, {
    ...selectionForAudit(input),
    count: ids.length,
    started,
    ...(input.reason ? { reason: input.reason } : {}),
    failed: results.filter((r) => !r.ok).map((r) => ({ id: r.id, name: r.name, error: r.error })),
  });
  return { dryRun: false, matched: ids.length, started, results };
}
