import "server-only";
import { bearerToken } from "./bearer";
import { db } from "@/lib/server/db/client";
import { isRole, lowerRole, type Role } from "@/lib/domain/roles";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { digestsEqual, parseCredential, sha256Hex } from "./secrets";
import { decodeSession, isSessionLive } from "./sessions";

/** Who is calling the admin API or viewing a page, and with which role. */
export type Principal = {
  actor: Actor;
  role: Role;
  via: "session" | "apiKey";
  user: { id: string; email: string; name: string | null } | null;
};

const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

type CookieReader = { get(name: string): { value: string } | undefined };

/** The raw session JWT, including next-auth's chunked form (name.0, name.1, ...). */
export function sessionCookie(cookies: CookieReader): string | null {
  for (const name of SESSION_COOKIES) {
    const whole = cookies.get(name)?.value;
    if (whole) return whole;
    let joined = "";
    for (let i = 0; ; i++) {
      const part = cookies.get(`${name}.${i}`)?.value;
      if (!part) break;
      joined += part;
    }
    if (joined) return joined;
  }
  return null;
}

/**
 * The signed-in user behind a session cookie, checked against the database on every call: the
 * user exists and is enabled, the session was started here and not signed out (its ConsoleSession
 * row) and was issued under the user's current sessionVersion (a password change ends every
 * session). The role is the user's current one, so role changes apply at once.
 */
export async function principalFromSession(cookies: CookieReader): Promise<Principal | null> {
  const raw = sessionCookie(cookies);
  if (!raw) return null;
  const claims = await decodeSession(raw);
  if (!claims) return null;
  const [user, live] = await Promise.all([db().user.findUnique({ where: { id: claims.uid } }), isSessionLive(claims.sid)]);
  if (!user || !live || user.disabledAt || user.sessionVersion !== claims.sv || !isRole(user.role)) return null;
  return {
    actor: { type: "user", id: user.id, label: user.email },
    role: user.role,
    via: "session",
    user: { id: user.id, email: user.email, name: user.name },
  };
}

// Writing lastUsedAt on every call would turn each read into a write; a minute is precise enough.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The API key behind a Bearer value, or null when it is unknown, wrong, expired or revoked. A key
 * never outlives its creator: it acts with the lower of its own role and its creator's current
 * role, and stops working (401, saying why) once its creator is disabled or gone.
 */
export async function principalFromApiKey(value: string): Promise<Principal | null> {
  const cred = parseCredential(value, "frk");
  if (!cred) return null;
  const key = await db().apiKey.findUnique({ where: { id: cred.id }, omit: { secretHash: false } });
  if (!key || !digestsEqual(sha256Hex(cred.secret), key.secretHash)) return null;
  const now = Date.now();
  if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now) || !isRole(key.role)) return null;
  const creator = key.createdById ? await db().user.findUnique({ where: { id: key.createdById } }) : null;
  if (!creator || !isRole(creator.role)) {
    throw new ApiError("unauthenticated", "The user who created this API key no longer exists, so the key no longer works.");
  }
  if (creator.disabledAt) {
    throw new ApiError(
      "unauthenticated",
      `The user who created this API key (${creator.email}) is disabled, so the key no longer works; an active admin can mint a new one.`,
    );
  }
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db().apiKey.update({ where: { id: key.id }, data: { lastUsedAt: new Date(now) } });
  }
  return {
    actor: { type: "apiKey", id: key.id, label: `api-key:${key.name}` },
    role: lowerRole(key.role, creator.role),
    via: "apiKey",
    user: null,
  };
}

/** Bearer header values that are not API keys (say, a session JWT) are refused outright. */
export function bearerFrom(headers: Headers): string | null {
  const h = headers.get("authorization");
  return h ? (bearerToken(h) ?? "") : null;
}
