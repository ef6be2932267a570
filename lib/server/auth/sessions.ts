import "server-only";
import { decode } from "next-auth/jwt";
import { db } from "@/lib/server/db/client";
import { authSecret } from "./auth-secret";
import { randomSecret, sha256Hex } from "./secrets";

// Console sessions are next-auth JWTs (next-auth v4 refuses database sessions with credentials
// sign-in), each backed by a row that must exist for it to work (principal.ts checks, on every
// request, these claims and that row):
// - sid: the session's id, a random secret fixed at sign-in (next-auth re-mints the standard `jti`
//   each time it re-encodes the cookie). Its row (ConsoleSession) is keyed by its SHA-256, so a
//   copy of the data (database and the signing secret in DATA_DIR) cannot make a cookie that
//   works: it has no sid of a live session, and a sid it invents has no row. Sign-out deletes it.
// - sv: the user's sessionVersion at sign-in. A password change bumps it, ending every session.
// - authAt: when the user signed in. A session never outlives SESSION_MAX_AGE_SECONDS from then,
//   however often the cookie is refreshed, so its row can expire with it.

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

export type SessionClaims = { uid: string; sid: string; sv: number; authAt: number };

/** Starts a session: its row is stored, and its claims go into the new cookie. */
export async function startSession(user: { id: string; sessionVersion: number }): Promise<SessionClaims> {
  const claims = { uid: user.id, sid: randomSecret(32), sv: user.sessionVersion, authAt: Math.floor(Date.now() / 1000) };
  await db().consoleSession.create({ data: { id: sha256Hex(claims.sid), userId: user.id, expiresAt: sessionEnd(claims) } });
  return claims;
}

function sessionEnd(claims: Pick<SessionClaims, "authAt">): Date {
  return new Date((claims.authAt + SESSION_MAX_AGE_SECONDS) * 1000);
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

/** Whether the session was started here and is neither signed out nor expired. */
export async function isSessionLive(sid: string, now = new Date()): Promise<boolean> {
  const row = await db().consoleSession.findUnique({ where: { id: sha256Hex(sid) }, select: { expiresAt: true } });
  return row !== null && row.expiresAt > now;
}

/** Ends one session everywhere. */
export async function endSession(claims: SessionClaims): Promise<void> {
  await db().consoleSession.deleteMany({ where: { id: sha256Hex(claims.sid) } });
}

/** Rows of sessions that have expired by themselves (background job). */
export async function pruneExpiredSessions(now = new Date()): Promise<void> {
  await db().consoleSession.deleteMany({ where: { expiresAt: { lt: now } } });
}
