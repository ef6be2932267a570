import "server-only";
import type { z } from "zod";
import type { BulkDeregistrationResult, bulkDeregistrationSchema } from "@/lib/contracts/clusters";
import { ApiError, knownError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { guardedSelection, selectionBreakdown } from "@/lib/server/clusters/bulk-guard";
import { selectionForAudit } from "@/lib/server/clusters/select-clusters";
import { db } from "@/lib/server/db/client";
import { actOnDeregistration, getDeregistration } from "./deregistration";

type Result = BulkDeregistrationResult["results"][number];

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
  const rows = await db().cluster.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, labels: { select: { key: true, value: true } } },
  });
  const names = new Map(rows.map((c) => [c.id, c.name]));
  const results: Result[] = [];
  for (const id of ids) {
    const name = names.get(id) ?? id;
    try {
      if (input.dryRun) {
        const state = await getDeregistration(id);
        results.push(
          state.availableActions.includes("start")
            ? { id, name, ok: true }
            : { id, name, ok: false, error: "invalid_transition", message: `Its wizard is at "${state.step}".` },
        );
      } else {
        await actOnDeregistration(actor, id, { action: "start", ...(input.reason ? { reason: input.reason } : {}) });
        results.push({ id, name, ok: true });
      }
    } catch (err) {
      const known = knownError(err);
      if (!(known instanceof ApiError) || known.status >= 500) throw err;
      results.push({ id, name, ok: false, error: known.code, message: known.message });
    }
  }
  const started = results.filter((r) => r.ok).length;
  if (input.dryRun)
    return {
      dryRun: true,
      matched: ids.length,
      breakdown: await selectionBreakdown(rows.map((r) => Object.fromEntries(r.labels.map((l) => [l.key, l.value])))),
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
