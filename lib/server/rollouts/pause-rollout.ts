import "server-only";
import type { Actor } from "@/lib/server/audit/record-audit";
import { inTransaction } from "@/lib/server/db/transaction";
import { getRollout } from "./get-rollout";
import { beginAction, commitAction } from "./rollout-action";

/** Stops starting upgrades; the ones under way still settle. */
export async function pauseRollout(actor: Actor, id: string, reason?: string) {
  const { rollout, next } = await beginAction(id, "pause");
  await inTransaction((tx) =>
    commitAction(tx, actor, "pause", rollout, { state: next, pausedReason: reason ?? `paused by ${actor.label}` }, reason),
  );
  return getRollout(id);
}
