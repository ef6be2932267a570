import "server-only";
import { decideRolloutAction, type RolloutAction } from "@/lib/domain/rollouts";
import { ApiError } from "@/lib/server/api/errors";
import type { Tx } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { findRollout } from "./get-rollout";

/** The rollout an operator acts on and the state the action leads to, or why it may not. */
export async function beginAction(id: string, action: RolloutAction) {
  const rollout = await findRollout(id);
  const decision = decideRolloutAction(rollout.state, action);
  if (!decision.ok) throw new ApiError(decision.code, decision.message);
  return { rollout, next: decision.next };
}

/**
 * Moves the rollout to its next state, conditional on the state the decision was made from (two
 * operators acting at once: the second is refused), and audits the action, in the caller's transaction.
 */
export async function commitAction(
  tx: Tx,
  actor: Actor,
  action: RolloutAction,
  rollout: { id: string; name: string; state: string },
  data: Parameters<Tx["rollout"]["updateMany"]>[0]["data"],
  reason: string | undefined,
  details: Record<string, unknown> = {},
) {
  const moved = await tx.rollout.updateMany({ where: { id: rollout.id, state: rollout.state }, data });
  if (!moved.count) throw new ApiError("invalid_transition", `The rollout changed meanwhile; cannot ${action} it now.`);
  await recordAudit(
    tx,
    actor,
    `rollout.${action}`,
    { type: "rollout", id: rollout.id },
    { name: rollout.name, ...details, ...(reason ? { reason } : {}) },
  );
}
