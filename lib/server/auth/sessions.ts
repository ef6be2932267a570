import "server-only";
import { randomUUID } from "node:crypto";
import { decode } from "next-auth/jwt";
import { db } from "@/lib/server/db/client";
import { authSecret } from "./auth-secret";

// Console sessions are next-auth JWTs (next-auth v4 refuses database sessions with credentials
// sign-in), made revocable by three claims checked on every request (principal.ts):
// - sid: the session's id, fixed at sign-in. next-auth re-mints the standard `jti` each time it
//   re-encodes the cookie, so the deny-list (RevokedSession) keys on `sid`: sign-out writes it.
// - sv: the user's sessionVersion at sign-in. A password change bumps it, ending every session.
// - authAt: when the user signed in. A session never outlives SESSION_MAX_AGE_SECONDS from then,
//   however often the cookie is refreshed, so a deny-list row can expire with it.

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

export type SessionClaims = { uid: string; sid: string; sv: number; authAt: number };

/** The claims a new session starts with. */
export function newSessionClaims(user: { id: string; sessionVersion: number }): SessionClaims {
  return { uid: user.id, sid: randomUUID(), sv: user.sessionVersion, authAt: Math.floor(Date.now() / 1000) };
}

/** The session claims of a decoded token, or null when missing, malformed or past the session's life. */
export function sessionClaims(token: Record<string, unknown> | null | undefined): SessionClaims | null {
  if (!token) return null;
  const { uid, sid, sv, authAt } = token;
  if (typeof uid !== "string" || typeof sid !== "string" || typeof sv !== "number" || typeof authAt !== "number") return null;
  if (authAt + SESSION_MAX_AGE_SECONDS <= Date.now() / 1000) return null;
  return { uid, sid, sv, authAt };
}

/** Decodes a raw session cookie value (signature and expiry checked by next-auth's decode). */
export async function decodeSession(raw: string): Promise<SessionClaims | null> {
  const token = await decode({ token: raw, secret: authSecret() }).catch(() => null);
  return sessionClaims(token);
}

/**
 * The ID token a single sign-on session keeps for RP-initiated logout (id_token_hint). It lives
 * only in the encrypted session cookie; the session callback never hands it to the browser.
 */
export async function sessionIdToken(raw: string): Promise<string | null> {
  const token = await decode({ token: raw, secret: authSecret() }).catch(() => null);
  return typeof token?.idToken === "string" ? token.idToken : null;
}

export async function isSessionRevoked(sid: string): Promise<boolean> {
  return (await db().revokedSession.findUnique({ where: { id: sid }, select: { id: true } })) !== null;
}

/** Ends one session everywhere: denied until it would have expired anyway. */
export async function revokeSession(claims: SessionClaims): Promise<void> {
  const expiresAt = new Date((claims.authAt + SESSION_MAX_AGE_SECONDS) * 1000);
  await db()
    .revokedSession.upsert({ where: { id: claims.sid }, create: { id: claims.sid, userId: claims.uid, expiresAt }, update: {} })
    .catch(async (err: unknown) => {
      // Two sign-outs of one session at once: the other one wrote it.
      if (!(await isSessionRevoked(claims.sid))) throw err;
    });
}

/** Deny-list rows of sessions that have expired by themselves (background job). */
export async function pruneRevokedSessions(now = new Date()): Promise<void> {
  await db().revokedSession.deleteMany({ where: { expiresAt: { lt: now } } });
}
