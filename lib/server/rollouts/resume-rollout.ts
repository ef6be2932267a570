import "server-only";
import type { Actor } from "@/lib/server/audit/record-audit";
import { inTransaction } from "@/lib/server/db/transaction";
import { getRollout } from "./get-rollout";
import { beginAction, commitAction } from "./rollout-action";
import { tickRollout } from "./tick-rollout";

/** Runs again, accepting the failures so far: only new ones count towards the threshold. */
export async function resumeRollout(actor: Actor, id: string, reason?: string) {
  const { rollout, next } = await beginAction(id, "resume");
  const failureBaseline = rollout.clusters.filter((c) => c.state === "Failed").length;
  await inTransaction((tx) =>
    commitAction(tx, actor, "resume", rollout, { state: next, pausedReason: null, failureBaseline }, reason),
  );
  await tickRollout(id);
  return getRollout(id);
}
