import "server-only";
import type { Actor } from "@/lib/server/audit/record-audit";
import { inTransaction } from "@/lib/server/db/transaction";
import { enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";
import { getRollout } from "./get-rollout";
import { beginAction, commitAction } from "./rollout-action";

/** Stops starting upgrades; the ones under way still settle. */
export async function pauseRollout(actor: Actor, id: string, reason?: string) {
  const { rollout, next } = await beginAction(id, "pause");
  const pausedReason = reason ?? `paused by ${actor.label}`;
  await inTransaction(async (tx) => {
    await commitAction(tx, actor, "pause", rollout, { state: next, pausedReason }, reason);
    await enqueueWebhookEvent(tx, {
      type: "rollout.paused",
      data: { rolloutId: rollout.id, rolloutName: rollout.name, reason: pausedReason, by: actor.label },
      occurredAt: new Date(),
    });
  });
  return getRollout(id);
}
