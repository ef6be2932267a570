import "server-only";
import { decode } from "next-auth/jwt";
import { db } from "@/lib/server/db/client";
import { isRole, type Role } from "@/lib/domain/roles";
import type { Actor } from "@/lib/server/audit/record-audit";
import { authSecret } from "./auth-secret";
import { digestsEqual, parseCredential, sha256Hex } from "./secrets";

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
function sessionCookie(cookies: CookieReader): string | null {
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

export async function principalFromSession(cookies: CookieReader): Promise<Principal | null> {
  const raw = sessionCookie(cookies);
  if (!raw) return null;
  const token = await decode({ token: raw, secret: authSecret() }).catch(() => null);
  const uid = typeof token?.uid === "string" ? token.uid : null;
  if (!uid) return null;
  const user = await db().user.findUnique({ where: { id: uid } });
  if (!user || user.disabledAt || !isRole(user.role)) return null;
  return {
    actor: { type: "user", id: user.id, label: user.email },
    role: user.role,
    via: "session",
    user: { id: user.id, email: user.email, name: user.name },
  };
}

// Writing lastUsedAt on every call would turn each read into a write; a minute is precise enough.
const LAST_USED_RESOLUTION_MS = 60_000;

export async function principalFromApiKey(value: string): Promise<Principal | null> {
  const cred = parseCredential(value, "frk");
  if (!cred) return null;
  const key = await db().apiKey.findUnique({ where: { id: cred.id }, omit: { secretHash: false } });
  if (!key || !digestsEqual(sha256Hex(cred.secret), key.secretHash)) return null;
  const now = Date.now();
  if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now) || !isRole(key.role)) return null;
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db().apiKey.update({ where: { id: key.id }, data: { lastUsedAt: new Date(now) } });
  }
  return { actor: { type: "apiKey", id: key.id, label: `api-key:${key.name}` }, role: key.role, via: "apiKey", user: null };
}

/** Bearer header values that are not API keys (say, a session JWT) are refused outright. */
export function bearerFrom(headers: Headers): string | null {
  const h = headers.get("authorization");
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : "";
}
