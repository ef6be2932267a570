import "server-only";
import { deniedKeyCoolingDown } from "@/lib/domain/registration-approval";
import { ApiError } from "@/lib/server/api/errors";
import { columns, readOnDriver, sql } from "@/lib/server/db/sql";
import { deniedError } from "./repeat-request";

const requests = columns("RegistrationRequest");

/** Rows read per registration at most: any pending one refuses it, whatever else there is. */
const READ_LIMIT = 100;

type Row = { id: string; state: string; reason: string | null; decidedAt: Date | string | number | null; keyHash: string };

/**
 * Before a new cluster is registered through a token that needs no approval: a key denied for the
 * name within the cooldown is refused with the operator's reason (a denial is not undone by another
 * token), and a name that registration requests wait for is not taken past them (409
 * cluster_conflict): the operator decides among those first. Every registration of a new name
 * asks this, so it is one raw statement (the requests waiting for the name and this key's own, newest
 * first), which almost always finds nothing.
 */
export async function refuseWhileWaiting(name: string, keyHash: string, now: Date, cooldownHours: number): Promise<void> {
  const rows = await readOnDriver<Row>(
    sql`SELECT ${requests.list("id", "state", "reason", "decidedAt", "keyHash")} FROM ${requests.table}
        WHERE ${requests("name")} = ${name} AND (${requests("state")} = 'pending' OR ${requests("keyHash")} = ${keyHash})
        ORDER BY ${requests("firstSeenAt")} DESC, ${requests("id")} DESC LIMIT ${READ_LIMIT}`,
  );
  if (rows.length === 0) return;
  // This key's newest request for the name (findEarlier's answer).
  const earlier = rows.find((r) => r.keyHash === keyHash);
  const decidedAt = earlier?.decidedAt == null ? null : new Date(earlier.decidedAt);
  if (earlier?.state === "denied" && deniedKeyCoolingDown(decidedAt, now, cooldownHours)) throw deniedError(earlier);
  const waiting = rows.filter((r) => r.state === "pending").length;
  if (waiting > 0) {
    throw new ApiError(
      "cluster_conflict",
      `A registration of the name ${name} is waiting for an operator's approval (${waiting} request${waiting === 1 ? "" : "s"}); it cannot be registered past it: an operator approves or denies it in Approvals first.`,
      { pendingRequests: waiting },
    );
  }
}
