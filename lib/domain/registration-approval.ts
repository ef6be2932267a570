// Registrations that wait for an operator's approval (docs/protocol.md, "Approval"): what the agent
// is told while it waits, how its repeats are recognised and answered, and how the queue pages.
// The request's states and their API live in lib/contracts/registration-requests.ts.

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

/**
 * A key's fingerprint as the agent prints it and the console shows it: `sha256:` and the SHA-256
 * (hex) of the public key's SPKI DER, the hash a request stores to recognise its repeats.
 */
export function keyFingerprint(keyHash: string): string {
  return `sha256:${keyHash}`;
}

/**
 * The key hash a search text may name: a fingerprint as printed (`sha256:ab12...`, any case, with
 * or without OpenSSL's colons) or a run of its hex digits; null when the text is not one.
 */
export function keyHashQuery(text: string): string | null {
  const hex = text
    .trim()
    .replace(/^sha256[:=]/i, "")
    .replace(/:/g, "")
    .toLowerCase();
  return /^[0-9a-f]{6,64}$/.test(hex) ? hex : null;
}

/**
 * The slot a pending request holds: one per name and key. Several keys may wait for one name (an
 * operator picks among them), but the same key asking twice at once is one request.
 */
export function pendingSlot(name: string, keyHash: string): string {
  return `${name}:${keyHash}`;
}

/** Why the other requests for a name were denied when one of them was approved. */
export const anotherApprovedReason = (approvedId: string) => `another request for this name was approved: ${approvedId}`;

/** Why a revoked token's pending requests were denied. */
export const TOKEN_REVOKED_REASON = "token revoked";

/** The default of the deniedKeyCooldownHours setting (lib/domain/settings.ts). */
export const DEFAULT_DENIED_KEY_COOLDOWN_HOURS = 24;

const HOUR_MS = 3_600_000;

/** The facts of a key's newest request for a name that decide how its next ask is answered. */
export type EarlierRequest = {
  state: string;
  expiresAt: Date;
  decidedAt: Date | null;
  /** The token of this ask is the request's own. */
  sameToken: boolean;
};

/**
 * How a key's new ask for a name is answered from its newest earlier request for that name:
 * - `pending`: 202 with that request (whatever the token now: it was checked when recorded);
 * - `expire`: it is past its expiresAt: expire it, 410;
 * - `denied`: 403 registration_denied with the operator's reason, for `cooldownHours` after the
 *   denial and whatever the token, so a denial is not undone by asking again;
 * - `expired`: 410 to the agent that kept asking with its token; with another token it may ask anew;
 * - `collect`: approved: the certificate issued on approval, if it is still there;
 * - `ask-anew`: nothing holds it back: a new request.
 */
export type EarlierAnswer = "pending" | "expire" | "denied" | "expired" | "collect" | "ask-anew";

export function answerFromEarlier(r: EarlierRequest, now: Date, cooldownHours: number): EarlierAnswer {
  switch (r.state) {
    case "pending":
      return r.expiresAt.getTime() <= now.getTime() ? "expire" : "pending";
    case "denied":
      return r.decidedAt && now.getTime() - r.decidedAt.getTime() >= cooldownHours * HOUR_MS ? "ask-anew" : "denied";
    case "expired":
      return r.sameToken ? "expired" : "ask-anew";
    case "approved":
    case "completed":
      return "collect";
    default:
      return "ask-anew";
  }
}

/** Is a key denied for a name within the cooldown still refused, whatever token it asks with? */
export function deniedKeyCoolingDown(decidedAt: Date | null, now: Date, cooldownHours: number): boolean {
  return answerFromEarlier({ state: "denied", decidedAt, expiresAt: now, sameToken: false }, now, cooldownHours) === "denied";
}

// The queue's keyset cursor: the last request of a page (newest first, by first ask, then id), as
// URL-safe text.
const CURSOR = /^(\d{1,15})~(rr_[a-z0-9]{1,64})$/;

export type RequestCursor = { firstSeenAt: Date; id: string };

export function encodeRequestCursor(c: RequestCursor): string {
  return `${c.firstSeenAt.getTime()}~${c.id}`;
}

/** The cursor back, or null when it is not one a previous page handed out. */
export function decodeRequestCursor(text: string): RequestCursor | null {
  const m = CURSOR.exec(text);
  if (!m) return null;
  const ms = Number(m[1]);
  if (ms > 8.64e15) return null;
  return { firstSeenAt: new Date(ms), id: m[2]! };
}
