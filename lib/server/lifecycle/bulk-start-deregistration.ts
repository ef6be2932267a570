import "server-only";
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { BulkDeregistrationResult, bulkDeregistrationSchema } from "@/lib/contracts/clusters";
import { recordAudit } from "@/lib/server/audit/record-audit";
import { actOnEach, guardedSelection, guardForAudit, type BulkCaller } from "@/lib/server/clusters/bulk-guard";
import { selectionForAudit } from "@/lib/server/clusters/select-clusters";
import { db } from "@/lib/server/db/client";
import type { Selector } from "@/lib/domain/selector";
import { drainStartMinute } from "@/lib/domain/selection-guard";
import { getSettings } from "@/lib/server/settings/settings";
import { actOnDeregistration, getDeregistration } from "./deregistration";
import { queueDrains, type QueuedDrainInput } from "./drain-queue";

/**
 * POST /api/v1/clusters/bulk/deregistration: the wizard's first step ("start": drain) for each
 * selected cluster, through the same service as the wizard (each start audited there), plus one
 * audit entry for the bulk action with the selection, its guard and the outcome. A cluster that
 * cannot start (already draining, removed meanwhile) is reported, not fatal. Behind the guard
 * (bulk-guard.ts): a confirmed count; an admin and a typed sentence for the whole fleet or
 * production. Paced: the first `drainStartsPerMinute` that can start start now, the rest wait in
 * the drain queue (drain-queue.ts), as many a minute. `dryRun` says which would start, breaks the
 * selection down and names the guard. Through a team (`scope`), only its clusters: what the
 * filter matches beyond them is counted as `leftOut`.
 */
export async function bulkStartDeregistration(
  caller: BulkCaller,
  input: z.output<typeof bulkDeregistrationSchema>,
  /** the caller's teams' selectors (lib/server/auth/authorize.ts); null: the whole fleet */
  scope: readonly Selector[] | null = null,
): Promise<BulkDeregistrationResult> {
  const selected = await guardedSelection(input, { verb: "draining", action: "drain" }, caller, scope);
  const { ids, guard } = selected;
  const { drainStartsPerMinute: perMinute } = await getSettings();
  const now = new Date();
  const batchId = randomUUID();
  const later: QueuedDrainInput[] = [];
  let startable = 0;
  const { results, started, breakdown } = await actOnEach(selected, async (id, actor) => {
    // Its turn is now: the wizard's own start, which refuses (4xx) a cluster that cannot start.
    if (!input.dryRun && startable < perMinute) {
      await actOnDeregistration(actor, id, { action: "start", ...(input.reason ? { reason: input.reason } : {}) });
      startable++;
      return;
    }
    const state = await getDeregistration(id);
    if (!state.availableActions.includes("start"))
      return { error: "invalid_transition", message: `Its wizard is at "${state.step}".` };
    const minute = drainStartMinute(startable++, perMinute);
    if (input.dryRun) return;
    const notBefore = new Date(now.getTime() + minute * 60_000);
    later.push({ clusterId: id, notBefore });
    return { startsAt: notBefore.toISOString() };
  });
  const leftOut = scope ? { leftOut: selected.leftOut } : {};
  if (input.dryRun)
    return {
      dryRun: true,
      matched: ids.length,
      ...leftOut,
      breakdown: await breakdown(),
      guard,
      startsPerMinute: perMinute,
      started,
      results,
    };
  await queueDrains(selected.bulkActor, batchId, input.reason ?? "", later);
  await recordAudit(db(), selected.bulkActor, "cluster.deregistration.bulk_start", null, {
    ...selectionForAudit(input),
    ...guardForAudit(selected, scope),
    count: ids.length,
    started,
    ...(later.length ? { queued: later.length, batchId, startsPerMinute: perMinute } : {}),
    ...(input.reason ? { reason: input.reason } : {}),
    failed: results.filter((r) => !r.ok).map((r) => ({ id: r.id, name: r.name, error: r.error })),
  });
  return {
    dryRun: false,
    matched: ids.length,
    ...leftOut,
    started,
    startsPerMinute: perMinute,
    ...(later.length ? { queued: later.length, batchId } : {}),
    results,
  };
}
