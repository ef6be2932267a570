// A registration request as a pure state machine (docs/protocol.md, "Approval"): which states there
// are, which trigger moves a request from which state to which, and which states still hold a
// token use. The server (lib/server/registration-requests/) writes each transition as one
// conditional update on its `from` state, so of two triggers at once exactly one wins.
//
//   pending  --approve-->  approved   an operator approved it: the cluster and its certificate exist
//   approved --collect-->  completed  the agent collected its certificate on its next try
//   pending  --deny----->  denied     by an operator, by the approval of another request for the
//                                     name, or by its token's revocation; the agent is told why (403)
//   pending  --expire--->  expired    no decision before expiresAt (410)

export const REGISTRATION_REQUEST_STATES = ["pending", "approved", "completed", "denied", "expired"] as const;
export type RegistrationRequestState = (typeof REGISTRATION_REQUEST_STATES)[number];

export const REQUEST_TRIGGERS = ["approve", "collect", "deny", "expire"] as const;
export type RequestTrigger = (typeof REQUEST_TRIGGERS)[number];

/** Each trigger's one transition. */
export const REQUEST_TRANSITIONS = {
  approve: { from: "pending", to: "approved" },
  collect: { from: "approved", to: "completed" },
  deny: { from: "pending", to: "denied" },
  expire: { from: "pending", to: "expired" },
} as const satisfies Record<RequestTrigger, { from: RegistrationRequestState; to: RegistrationRequestState }>;

/** The state a trigger moves a request in `state` to, or null when it does not apply there. */
export function nextRequestState(state: string, trigger: RequestTrigger): RegistrationRequestState | null {
  const t = REQUEST_TRANSITIONS[trigger];
  return state === t.from ? t.to : null;
}

/** The state that waits for a decision and holds its token's use (shared by the token's requests for the name). */
export const WAITING_STATE = "pending" satisfies RegistrationRequestState;

/** States no trigger leaves, or only the agent's collection: no agent waits on an operator any more. */
export const DECIDED_STATES = REGISTRATION_REQUEST_STATES.filter((s) => s !== WAITING_STATE);

/** Is a pending request past its expiresAt, so that the next look at it expires it? */
export function dueToExpire(r: { state: string; expiresAt: Date }, now: Date): boolean {
  return nextRequestState(r.state, "expire") !== null && r.expiresAt.getTime() <= now.getTime();
}
