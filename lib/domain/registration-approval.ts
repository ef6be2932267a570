// Registrations that wait for an operator's approval (docs/protocol.md, "Approval"): what the agent
// is told while it waits. The request's states and their API live in lib/contracts/registration-requests.ts.

/**
 * How often an agent whose registration waits asks again (the 202's Retry-After): often enough
 * that an approval takes effect within seconds, rarely enough that a waiting fleet costs little.
 */
export const PENDING_APPROVAL_RETRY_SECONDS = 15;

/** The 202 body of a registration waiting for approval. */
export type PendingApprovalReply = { status: "pending_approval"; requestId: string; retryAfterSeconds: number };

export function pendingApprovalReply(requestId: string): PendingApprovalReply {
  return { status: "pending_approval", requestId, retryAfterSeconds: PENDING_APPROVAL_RETRY_SECONDS };
}
