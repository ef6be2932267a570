import "server-only";
import { DIRECTIVES, type DirectivePayload, type DirectiveType } from "@/lib/domain/agent-protocol";
import { randomId } from "@/lib/server/auth/secrets";
import type { Tx } from "@/lib/server/db/client";
import type { AfterCommit } from "@/lib/server/db/transaction";
import { invalidateHeartbeatContext } from "@/lib/server/heartbeats/heartbeat-context";

// The one door for a cluster's open directives: writing one and withdrawing some. Both queue the
// heartbeat context's invalidation, so the next heartbeat answer on this instance already says
// what changed (other instances see it within their snapshot's second).

/**
 * Queues a directive for a cluster's agent (a type of DIRECTIVES in lib/domain/agent-protocol.ts,
 * with its payload); it is repeated in every heartbeat answer until the agent acknowledges it.
 */
export async function createDirective<T extends DirectiveType>(
  tx: Tx,
  afterCommit: AfterCommit,
  directive: { clusterId: string; type: T; payload: DirectivePayload<T> },
): Promise<string> {
  const { clusterId, type } = directive;
  // Checked here too: a payload that does not match the table is a bug, and the agent would act on it.
  const payload = DIRECTIVES[type].payload.parse(directive.payload);
  const id = `d_${randomId(16)}`;
  await tx.directive.create({ data: { id, clusterId, type, payload: JSON.stringify(payload) } });
  afterCommit(invalidateHeartbeatContext);
  return id;
}

/** Withdraws directives the agent has not acknowledged yet: these ids, or a cluster's of these types. */
export async function withdrawDirectives(
  tx: Tx,
  afterCommit: AfterCommit,
  which: { ids: string[] } | { clusterId: string; types: DirectiveType[] },
): Promise<number> {
  const where = "ids" in which ? { id: { in: which.ids } } : { clusterId: which.clusterId, type: { in: which.types } };
  const { count } = await tx.directive.deleteMany({ where: { ...where, ackedAt: null } });
  if (count) afterCommit(invalidateHeartbeatContext);
  return count;
}
