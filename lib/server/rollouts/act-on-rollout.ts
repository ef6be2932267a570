import "server-only";
import type { RolloutActionInput } from "@/lib/contracts/rollouts";
import type { Actor } from "@/lib/server/audit/record-audit";
import { abortRollout } from "./abort-rollout";
import { approveRollout } from "./approve-rollout";
import { pauseRollout } from "./pause-rollout";
import { resumeRollout } from "./resume-rollout";

const VERBS = { pause: pauseRollout, resume: resumeRollout, abort: abortRollout, approve: approveRollout };

/** POST /api/v1/rollouts/{id}/actions: one of the operator's verbs. */
export function actOnRollout(actor: Actor, id: string, input: RolloutActionInput) {
  return VERBS[input.action](actor, id, input.reason);
}
