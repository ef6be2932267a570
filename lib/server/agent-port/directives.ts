import "server-only";
import { randomId } from "@/lib/server/auth/secrets";
import type { Tx } from "@/lib/server/db/client";

/**
 * Queues a directive for a cluster's agent; it is repeated in every heartbeat answer until the
 * agent acknowledges it. Call invalidateHeartbeatContext() after the transaction commits.
 */
export async function createDirective(
  tx: Tx,
  clusterId: string,
  type: string,
  payload: Record<string, unknown> = {},
): Promise<string> {
  const id = `d_${randomId(16)}`;
  await tx.directive.create({ data: { id, clusterId, type, payload: JSON.stringify(payload) } });
  return id;
}
