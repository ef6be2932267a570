import "server-only";
import { approvalProblem } from "@/lib/domain/rollouts";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { getSettings } from "@/lib/server/settings/settings";
import { getRollout } from "./get-rollout";
import { beginAction, commitAction } from "./rollout-action";
import { currentStageEvidence, evidenceClusters } from "./stage-evidence";
import { tickRollout } from "./tick-rollout";

/**
 * Lets a rollout awaiting approval go on to its next stage, and starts that stage at once. Refused
 * (canaries_not_ready) while an upgraded cluster of the finished stage is not Ready on the target,
 * judged from the clusters now, not when the stage finished; `override` with a reason approves
 * anyway and is audited as an override with the evidence it overrode.
 */
export async function approveRollout(actor: Actor, id: string, reason?: string, override = false) {
  const { rollout, next } = await beginAction(id, "approve");
  const now = new Date();
  const { notReadyThresholdSeconds } = await getSettings();
  const evidence = currentStageEvidence(
    rollout,
    await evidenceClusters(
      db(),
      rollout.clusters.map((c) => c.clusterId),
    ),
    now,
    notReadyThresholdSeconds,
  );
  const problem = approvalProblem(evidence);
  if (problem && !override)
    throw new ApiError("canaries_not_ready", `${problem} Approve with an override and a reason to go on anyway.`, {
      canaries: evidence.canaries
        .filter((c) => c.problem)
        .map((c) => ({ clusterId: c.clusterId, name: c.name, problem: c.problem })),
    });
  const stage = rollout.currentStage + 1;
  await inTransaction((tx) =>
    commitAction(tx, actor, "approve", rollout, { state: next, currentStage: stage, stageCompletedAt: null }, reason, {
      stage,
      ...(problem && override
        ? {
            override: true,
            overridden: problem,
            canaries: evidence.canaries.filter((c) => c.problem).map((c) => ({ name: c.name, problem: c.problem })),
          }
        : {}),
    }),
  );
  await tickRollout(id);
  return getRollout(id);
}
