import "server-only";
import { bearerToken } from "./bearer";
import { db } from "@/lib/server/db/client";
import { fleetRoleOf, hasRole, higherRole, isFleetRole, isRole, lowerRole, type Role } from "@/lib/domain/roles";
import { storedScope, type Access, type TeamGrant } from "@/lib/domain/teams";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { digestsEqual, parseCredential, sha256Hex } from "./secrets";
import { decodeSession, isSessionLive } from "./sessions";

/** Who is calling the admin API or viewing a page, and with which roles. */
export type Principal = {
  actor: Actor;
  /** The fleet role; null: none, only what `teams` give. */
  role: Role | null;
  /** The teams the caller belongs to (directly, or through an SSO group or as an API key), with their role in each. */
  teams: TeamGrant[];
  via: "session" | "apiKey";
  user: { id: string; email: string; name: string | null } | null;
};

export function accessOf(principal: Principal): Access {
  return { fleetRole: principal.role, teams: principal.teams };
}

type MemberRow = { role: string; team: { id: string; name: string; selector: string } };

/** Membership rows as grants: the highest role per team; a team whose stored scope no longer parses grants nothing. */
function grantsOf(rows: MemberRow[]): TeamGrant[] {
  const byTeam = new Map<string, TeamGrant>();
  for (const row of rows) {
    const selector = storedScope(row.team.selector);
    if (!isRole(row.role) || !selector) continue;
    const held = byTeam.get(row.team.id);
    if (held && hasRole(held.role, row.role)) continue;
    byTeam.set(row.team.id, { teamId: row.team.id, team: row.team.name, role: row.role, selector });
  }
  return [...byTeam.values()].sort((a, b) => a.team.localeCompare(b.team));
}

const TEAM_OF_MEMBER = { role: true, team: { select: { id: true, name: true, selector: true } } } as const;

/** A user's teams: their own memberships and those of the SSO groups they were in at their last single sign-on. */
export async function userTeams(user: { id: string; ssoGroups: string | null }): Promise<TeamGrant[]> {
  const groups = parseGroups(user.ssoGroups);
  const rows = await db().teamMember.findMany({
    where: { OR: [{ userId: user.id }, ...(groups.length ? [{ ssoGroup: { in: groups } }] : [])] },
    select: TEAM_OF_MEMBER,
  });
  return grantsOf(rows);
}

/** The SSO groups a user row keeps from their last single sign-on (none when unreadable). */
export function parseGroups(stored: string | null): string[] {
  if (!stored) return [];
  try {
    const list: unknown = JSON.parse(stored);
    return Array.isArray(list) ? list.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

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
  if (!user || !live || user.disabledAt || user.sessionVersion !== claims.sv || !isFleetRole(user.role)) return null;
  return {
    actor: { type: "user", id: user.id, label: user.email },
    role: fleetRoleOf(user.role),
    teams: await userTeams(user),
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
  if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now) || !isFleetRole(key.role)) return null;
  const creator = key.createdById ? await db().user.findUnique({ where: { id: key.createdById } }) : null;
  if (!creator || !isFleetRole(creator.role)) {
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
  const keyRole = fleetRoleOf(key.role);
  const creatorRole = fleetRoleOf(creator.role);
  return {
    actor: { type: "apiKey", id: key.id, label: `api-key:${key.name}` },
    role: keyRole && creatorRole ? lowerRole(keyRole, creatorRole) : null,
    teams: await apiKeyTeams(key.id, creator),
    via: "apiKey",
    user: null,
  };
}

/** Bearer header values that are not API keys (say, a session JWT) are refused outright. */
export function bearerFrom(headers: Headers): string | null {
  const h = headers.get("authorization");
  return h ? (bearerToken(h) ?? "") : null;
}

/**
 * An API key's teams, each capped, like its fleet role, by its creator's current access to the
 * same team (their fleet role or their own role in it): a key never outranks the person behind it.
 */
async function apiKeyTeams(keyId: string, creator: { id: string; role: string; ssoGroups: string | null }): Promise<TeamGrant[]> {
  const rows = await db().teamMember.findMany({ where: { apiKeyId: keyId }, select: TEAM_OF_MEMBER });
  if (!rows.length) return [];
  const creatorFleet = isFleetRole(creator.role) ? fleetRoleOf(creator.role) : null;
  const creatorTeams = new Map((await userTeams(creator)).map((g) => [g.teamId, g.role]));
  return grantsOf(rows).flatMap((grant) => {
    const cap = higherRole(creatorFleet, creatorTeams.get(grant.teamId) ?? null);
    return cap ? [{ ...grant, role: lowerRole(grant.role, cap) }] : [];
  });
}

/**
 * What a user or an API key may do now, by id, for work they confirmed earlier and that is done
 * later in their name (a queued drain): as a call of theirs would be allowed now. A disabled or
 * deleted user, a revoked or expired key, or a key whose creator is gone or disabled: nothing.
 */
export async function accessOfActor(actor: Pick<Actor, "type" | "id">): Promise<Access | null> {
  if (!actor.id) return null;
  if (actor.type === "user") {
    const user = await db().user.findUnique({ where: { id: actor.id } });
    if (!user || user.disabledAt || !isFleetRole(user.role)) return null;
    return { fleetRole: fleetRoleOf(user.role), teams: await userTeams(user) };
  }
  if (actor.type !== "apiKey") return null;
  const key = await db().apiKey.findUnique({ where: { id: actor.id } });
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= Date.now()) || !isFleetRole(key.role)) return null;
  const creator = key.createdById ? await db().user.findUnique({ where: { id: key.createdById } }) : null;
  if (!creator || creator.disabledAt || !isFleetRole(creator.role)) return null;
  const [keyRole, creatorRole] = [fleetRoleOf(key.role), fleetRoleOf(creator.role)];
  return {
    fleetRole: keyRole && creatorRole ? lowerRole(keyRole, creatorRole) : null,
    teams: await apiKeyTeams(key.id, creator),
  };
}
