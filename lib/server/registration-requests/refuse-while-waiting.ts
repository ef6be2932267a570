import "server-only";
import { deniedKeyCoolingDown } from "@/lib/domain/registration-approval";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { deniedError, findEarlier } from "./repeat-request";

/**
 * Before a new cluster is registered through a token that needs no approval: a key denied for the
 * name within the cooldown is refused with the operator's reason (a denial is not undone by another
 * token), and a name that registration requests wait for is not taken past them (409
 * cluster_conflict): the operator decides among those first.
 */
export async function refuseWhileWaiting(name: string, keyHash: string, now: Date, cooldownHours: number): Promise<void> {
  const [earlier, waiting] = await Promise.all([
    findEarlier(name, keyHash),
    db().registrationRequest.count({ where: { name, state: "pending" } }),
  ]);
  if (earlier?.state === "denied" && deniedKeyCoolingDown(earlier.decidedAt, now, cooldownHours)) throw deniedError(earlier);
  if (waiting > 0) {
    throw new ApiError(
      "cluster_conflict",
      `A registration of the name ${name} is waiting for an operator's approval (${waiting} request${waiting === 1 ? "" : "s"}); it cannot be registered past it: an operator approves or denies it in Approvals first.`,
      { pendingRequests: waiting },
    );
  }
}
