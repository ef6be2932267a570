import "server-only";
import type { Actor } from "@/lib/server/audit/record-audit";
import { inTransaction } from "@/lib/server/db/transaction";
import { getRollout } from "./get-rollout";
import { beginAction, commitAction } from "./rollout-action";
import { tickRollout } from "./tick-rollout";

/** Lets a rollout awaiting approval go on to its next stage, and starts that stage at once. */
export async function approveRollout(actor: Actor, id: string, reason?: string) {
  const { rollout, next } = await beginAction(id, "approve");
  const stage = rollout.currentStage + 1;
  await inTransaction((tx) =>
    commitAction(tx, actor, "approve", rollout, { state: next, currentStage: stage, stageCompletedAt: null }, reason, {
      stage,
    }),
  );
  await tickRollout(id);
  return getRollout(id);
}
