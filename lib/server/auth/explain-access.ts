import "server-only";
import type { MyAccess, TeamGrantWhy } from "@/lib/contracts/me";
import { roleActions } from "@/lib/contracts/role-reach";
import { ADMIN_ROUTES } from "@/lib/contracts/routes";
import { hasRole, isRole } from "@/lib/domain/roles";
import { selectorSample } from "@/lib/server/clusters/cluster-list-sql";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { parseGroups, type Principal } from "./principal";

// "Your access": what the caller can see and do, and why. The roles themselves are the
// principal's, resolved exactly as every request resolves them (principal.ts); this only
// explains them: where the fleet role comes from, which memberships give each team role, and
// what each role reaches according to the route declarations.

/** Read once: the declarations do not change while the server runs. */
let actions: MyAccess["actions"] | null = null;

const MEMBER_ROW = { role: true, teamId: true, userId: true, apiKeyId: true, ssoGroup: true } as const;

export async function explainAccess(principal: Principal): Promise<MyAccess> {
  actions ??= roleActions(ADMIN_ROUTES);
  const { fleet, memberships, ssoGroups } =
    principal.actor.type === "apiKey" ? await keyFacts(principal) : await userFacts(principal);
  const teamIds = principal.teams.map((g) => g.teamId);
  const teams = teamIds.length
    ? await db().team.findMany({ where: { id: { in: teamIds } }, select: { id: true, description: true, selector: true } })
    : [];
  const byId = new Map(teams.map((t) => [t.id, t]));
  return {
    who: { kind: principal.actor.type === "apiKey" ? "apiKey" : "user", name: principal.user?.email ?? principal.actor.label },
    fleet,
    teams: await Promise.all(
      principal.teams.map(async (g) => ({
        id: g.teamId,
        name: g.team,
        description: byId.get(g.teamId)?.description ?? null,
        role: g.role,
        grants: memberships(g.teamId, g.role),
        selector: byId.get(g.teamId)?.selector ?? "",
        clusters: (await selectorSample(g.selector, 0)).count,
      })),
    ),
    ssoGroups,
    actions,
  };
}

type Facts = {
  fleet: MyAccess["fleet"];
  /** the memberships behind a team's grant, given the role the principal holds in it */
  memberships: (teamId: string, held: MyAccess["teams"][number]["role"]) => TeamGrantWhy[];
  ssoGroups: string[];
};

type MemberRow = { role: string; teamId: string; userId: string | null; apiKeyId: string | null; ssoGroup: string | null };

function rowsOf(rows: MemberRow[]) {
  return (teamId: string) => rows.filter((r) => r.teamId === teamId && isRole(r.role));
}

async function userFacts(principal: Principal): Promise<Facts> {
  const userId = principal.user?.id ?? principal.actor.id ?? "";
  const [user, settings] = await Promise.all([
    db().user.findUnique({ where: { id: userId }, select: { oidcSubject: true, ssoGroups: true } }),
    getSettings(),
  ]);
  const ssoGroups = parseGroups(user?.ssoGroups ?? null);
  const rows = await db().teamMember.findMany({
    where: { OR: [{ userId }, ...(ssoGroups.length ? [{ ssoGroup: { in: ssoGroups } }] : [])] },
    select: MEMBER_ROW,
  });
  const sso = !!user?.oidcSubject;
  const source =
    sso && settings.ssoRoleMapping
      ? `set at each single sign-on by the SSO role mapping, from your "${settings.ssoRoleMapping.claim}" claim`
      : "given to your account by a fleet admin (Settings → Users)";
  const fleet = principal.role
    ? { role: principal.role, why: `Your fleet role, ${source}.` }
    : { role: null, why: `You have no fleet role (${source}): you see only what your teams give you.` };
  const of = rowsOf(rows);
  return {
    fleet,
    ssoGroups: sso ? ssoGroups : [],
    memberships: (teamId) =>
      of(teamId).map((r): TeamGrantWhy =>
        r.ssoGroup !== null
          ? { via: "ssoGroup", group: r.ssoGroup, role: r.role as TeamGrantWhy["role"] }
          : { via: "user", role: r.role as TeamGrantWhy["role"] },
      ),
  };
}

async function keyFacts(principal: Principal): Promise<Facts> {
  const keyId = principal.actor.id ?? "";
  const [key, rows] = await Promise.all([
    db().apiKey.findUnique({ where: { id: keyId }, select: { role: true, createdById: true } }),
    db().teamMember.findMany({ where: { apiKeyId: keyId }, select: MEMBER_ROW }),
  ]);
  const creator = key?.createdById
    ? await db().user.findUnique({ where: { id: key.createdById }, select: { email: true, role: true } })
    : null;
  const keyRole = key && isRole(key.role) ? key.role : null;
  const creatorRole = creator && isRole(creator.role) ? creator.role : null;
  const by = creator ? `its creator ${creator.email}` : "its creator";
  const why = !keyRole
    ? "This key has no fleet role: it reaches only what its teams give it."
    : principal.role && principal.role !== keyRole
      ? `This key's role is ${keyRole}, but a key never outranks the person behind it: ${by} is ${creatorRole ?? "without a fleet role"}, so it acts as ${principal.role}.`
      : principal.role
        ? `This key's own role (${by} holds at least as much).`
        : `This key's role is ${keyRole}, but ${by} has no fleet role, so it has none either.`;
  const of = rowsOf(rows);
  return {
    fleet: { role: principal.role, why },
    ssoGroups: [],
    // The grant the key acts with is already capped (principal.ts, apiKeyTeams): a membership above it was lowered to it.
    memberships: (teamId, held) =>
      of(teamId).map((r): TeamGrantWhy => {
        const role = r.role as TeamGrantWhy["role"];
        return { via: "apiKey", role, cappedTo: hasRole(held, role) ? null : held };
      }),
  };
}
