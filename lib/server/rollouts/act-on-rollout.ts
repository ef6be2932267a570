import "server-only";
import type { RolloutActionInput } from "@/lib/contracts/rollouts";
import type { Actor } from "@/lib/server/audit/record-audit";
import { abortRollout } from "./abort-rollout";
import { approveRollout } from "./approve-rollout";
import { pauseRollout } from "./pause-rollout";
import { resumeRollout } from "./resume-rollout";

/** POST /api/v1/rollouts/{id}/actions: one of the operator's verbs. */
export function actOnRollout(actor: Actor, id: string, input: RolloutActionInput) {
  switch (input.action) {
    case "pause":
      return pauseRollout(actor, id, input.reason);
    case "resume":
      return resumeRollout(actor, id, input.reason);
    case "abort":
      return abortRollout(actor, id, input.reason);
    case "approve":
      return approveRollout(actor, id, input.reason, input.override ?? false);
  }
}
