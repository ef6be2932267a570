import "server-only";
import type { z } from "zod";
import type { deleteTeamQuerySchema, ScopePreview, Team, TeamMember } from "@/lib/contracts/teams";
import type { Role } from "@/lib/domain/roles";
import { parseSelector } from "@/lib/domain/selector";
import {
  scopeProblem,
  storedScope,
  type addTeamMemberSchema,
  type createTeamSchema,
  type updateTeamMemberSchema,
  type updateTeamSchema,
} from "@/lib/domain/teams";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import type { Principal } from "@/lib/server/auth/principal";
import { NO_SUCH_TEAM } from "@/lib/server/auth/authorize";
import { selectorSample } from "@/lib/server/clusters/cluster-list-sql";
import { db, type Tx } from "@/lib/server/db/client";

// Teams and their members (lib/domain/teams.ts). Fleet admins create teams and set scopes; a
// team's admins manage who is in it. Every change is audited.

/** Cluster names shown beside a scope (the console's preview, a team's page). */
const SAMPLE = 10;

type TeamRow = {
  id: string;
  name: string;
  description: string | null;
  selector: string;
  createdAt: Date;
  updatedAt: Date;
  members: {
    id: string;
    role: string;
    userId: string | null;
    apiKeyId: string | null;
    ssoGroup: string | null;
    createdAt: Date;
  }[];
};

const WITH_MEMBERS = { members: { orderBy: { createdAt: "asc" } } } as const;

async function memberViews(rows: TeamRow["members"]): Promise<TeamMember[]> {
  const userIds = rows.flatMap((m) => (m.userId ? [m.userId] : []));
  const keyIds = rows.flatMap((m) => (m.apiKeyId ? [m.apiKeyId] : []));
  const [users, keys] = await Promise.all([
    userIds.length ? db().user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true } }) : [],
    keyIds.length ? db().apiKey.findMany({ where: { id: { in: keyIds } }, select: { id: true, name: true } }) : [],
  ]);
  const userEmail = new Map(users.map((u) => [u.id, u.email]));
  const keyName = new Map(keys.map((k) => [k.id, k.name]));
  return rows.map((m) => ({
    id: m.id,
    kind: m.userId ? "user" : m.apiKeyId ? "apiKey" : "ssoGroup",
    name: m.userId ? (userEmail.get(m.userId) ?? m.userId) : m.apiKeyId ? (keyName.get(m.apiKeyId) ?? m.apiKeyId) : m.ssoGroup!,
    subjectId: m.userId ?? m.apiKeyId ?? null,
    role: m.role as Role,
    createdAt: m.createdAt.toISOString(),
  }));
}

async function view(t: TeamRow): Promise<Team> {
  const scope = storedScope(t.selector);
  const [clusters, members] = await Promise.all([
    scope ? selectorSample(scope, SAMPLE) : { count: 0, names: [] },
    memberViews(t.members),
  ]);
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    selector: t.selector,
    clusters,
    members,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

/** Every team for a fleet role; otherwise the caller's own teams. */
export async function listTeams(principal: Principal): Promise<{ items: Team[] }> {
  const teams = await db().team.findMany({
    where: principal.role ? {} : { id: { in: principal.teams.map((g) => g.teamId) } },
    include: WITH_MEMBERS,
    orderBy: { name: "asc" },
  });
  return { items: await Promise.all(teams.map(view)) };
}

async function teamRow(client: Tx | ReturnType<typeof db>, id: string): Promise<TeamRow> {
  const t = await client.team.findUnique({ where: { id }, include: WITH_MEMBERS });
  if (!t) throw new ApiError("not_found", NO_SUCH_TEAM);
  return t;
}

export async function getTeam(id: string): Promise<Team> {
  return view(await teamRow(db(), id));
}

async function assertNameFree(client: Tx, name: string, exceptId?: string) {
  const clash = await client.team.findUnique({ where: { name } });
  if (clash && clash.id !== exceptId) throw new ApiError("conflict", `A team named ${name} already exists.`);
}

export async function createTeam(actor: Actor, input: z.output<typeof createTeamSchema>): Promise<Team> {
  const created = await db().$transaction(async (tx) => {
    await assertNameFree(tx, input.name);
    const t = await tx.team.create({
      data: { name: input.name, description: input.description ?? null, selector: input.selector },
      include: WITH_MEMBERS,
    });
    await recordAudit(tx, actor, "team.create", { type: "team", id: t.id }, { name: t.name, selector: t.selector });
    return t;
  });
  return view(created);
}

/** What a scope would match, and against a team's current scope who enters and who leaves. */
export async function previewScope(body: { selector: string; team?: string }): Promise<ScopePreview> {
  const problem = scopeProblem(body.selector);
  if (problem) return { problem, matches: { count: 0, names: [] }, entering: null, leaving: null };
  const next = parseSelector(body.selector);
  const current = body.team
    ? await db().team.findFirst({ where: { OR: [{ id: body.team }, { name: body.team }] }, select: { selector: true } })
    : null;
  if (body.team && !current) throw new ApiError("not_found", NO_SUCH_TEAM);
  const before = current ? storedScope(current.selector) : null;
  const [matches, entering, leaving] = await Promise.all([
    selectorSample(next, SAMPLE),
    before ? selectorSample(next, SAMPLE, before) : null,
    before ? selectorSample(before, SAMPLE, next) : null,
  ]);
  return { problem: null, matches, entering, leaving };
}

export async function updateTeam(actor: Actor, id: string, input: z.output<typeof updateTeamSchema>): Promise<Team> {
  const before = await teamRow(db(), id);
  // Who a new scope lets in and leaves out, computed before the write, for the audit.
  const moved =
    input.selector && input.selector !== before.selector ? await previewScope({ selector: input.selector, team: id }) : null;
  const updated = await db().$transaction(async (tx) => {
    if (input.name) await assertNameFree(tx, input.name, id);
    const t = await tx.team.update({ where: { id }, data: input, include: WITH_MEMBERS });
    const changes = Object.fromEntries(
      (Object.keys(input) as (keyof typeof input)[]).map((k) => [k, { from: before[k], to: t[k] }]),
    );
    await recordAudit(
      tx,
      actor,
      "team.update",
      { type: "team", id },
      {
        name: t.name,
        changes,
        ...(moved ? { clustersEntering: moved.entering?.count ?? 0, clustersLeaving: moved.leaving?.count ?? 0 } : {}),
      },
    );
    return t;
  });
  return view(updated);
}

export async function deleteTeam(actor: Actor, id: string, query: z.output<typeof deleteTeamQuerySchema>): Promise<void> {
  await db().$transaction(async (tx) => {
    const t = await teamRow(tx, id);
    if (t.members.length && query.confirm !== t.name)
      throw new ApiError(
        "team_confirmation_required",
        `Team ${t.name} has ${t.members.length} member${t.members.length === 1 ? "" : "s"}, who lose what it gives them: send confirm=${t.name} to delete it.`,
        { members: t.members.length },
      );
    await tx.team.delete({ where: { id } });
    // Its tokens would land clusters in a scope no one holds: they stop with the team.
    const revokedTokens = await tx.registrationToken.updateMany({
      where: { teamId: id, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    await recordAudit(
      tx,
      actor,
      "team.delete",
      { type: "team", id },
      {
        name: t.name,
        selector: t.selector,
        members: t.members.length,
        ...(revokedTokens.count ? { revokedTokens: revokedTokens.count } : {}),
      },
    );
  });
}

/** The member a request names: a user by id or email, an API key by id, or an SSO group. */
async function subjectOf(tx: Tx, input: z.output<typeof addTeamMemberSchema>) {
  if (input.user !== undefined) {
    const user = await tx.user.findFirst({
      where: { OR: [{ id: input.user }, { email: input.user.toLowerCase() }] },
      select: { id: true, email: true },
    });
    if (!user) throw new ApiError("not_found", `No user ${input.user}.`);
    return { data: { userId: user.id }, label: user.email, kind: "user" as const };
  }
  if (input.apiKey !== undefined) {
    const key = await tx.apiKey.findUnique({ where: { id: input.apiKey }, select: { id: true, name: true, revokedAt: true } });
    if (!key) throw new ApiError("not_found", `No API key ${input.apiKey}.`);
    if (key.revokedAt) throw new ApiError("conflict", `API key ${key.name} is revoked.`);
    return { data: { apiKeyId: key.id }, label: key.name, kind: "apiKey" as const };
  }
  return { data: { ssoGroup: input.ssoGroup! }, label: input.ssoGroup!, kind: "ssoGroup" as const };
}

export async function addTeamMember(actor: Actor, teamId: string, input: z.output<typeof addTeamMemberSchema>): Promise<Team> {
  const t = await db().$transaction(async (tx) => {
    const team = await teamRow(tx, teamId);
    const subject = await subjectOf(tx, input);
    const existing = await tx.teamMember.findFirst({ where: { teamId, ...subject.data } });
    if (existing) throw new ApiError("conflict", `${subject.label} is already in team ${team.name} (as ${existing.role}).`);
    const member = await tx.teamMember.create({ data: { teamId, role: input.role, ...subject.data } });
    await recordAudit(
      tx,
      actor,
      "team.member_add",
      { type: "team", id: teamId },
      {
        team: team.name,
        member: { id: member.id, kind: subject.kind, name: subject.label },
        role: input.role,
      },
    );
    return teamRow(tx, teamId);
  });
  return view(t);
}

/** Refuses leaving a team that has admins without one (its admins manage it; fleet admins always can). */
function keepAnAdmin(team: TeamRow, memberId: string, nextRole: string | null) {
  const admins = team.members.filter((m) => m.role === "admin");
  if (admins.length === 1 && admins[0]!.id === memberId && nextRole !== "admin")
    throw new ApiError(
      "last_team_admin",
      `This is team ${team.name}'s last admin: make another member admin first, so someone can still manage the team.`,
    );
}

function memberOf(team: TeamRow, memberId: string) {
  const member = team.members.find((m) => m.id === memberId);
  if (!member) throw new ApiError("not_found", `No member ${memberId} in team ${team.name}.`);
  return member;
}

export async function updateTeamMember(
  actor: Actor,
  teamId: string,
  memberId: string,
  input: z.output<typeof updateTeamMemberSchema>,
): Promise<Team> {
  return changeMember(actor, teamId, memberId, input.role);
}

export async function removeTeamMember(actor: Actor, teamId: string, memberId: string): Promise<Team> {
  return changeMember(actor, teamId, memberId, null);
}

/** A member's new role, or their removal (null): never the team's last admin, audited with who they are. */
async function changeMember(actor: Actor, teamId: string, memberId: string, role: Role | null): Promise<Team> {
  const t = await db().$transaction(async (tx) => {
    const team = await teamRow(tx, teamId);
    const member = memberOf(team, memberId);
    keepAnAdmin(team, memberId, role);
    if (role) await tx.teamMember.update({ where: { id: memberId }, data: { role } });
    else await tx.teamMember.delete({ where: { id: memberId } });
    const [named] = await memberViews([member]);
    await recordAudit(
      tx,
      actor,
      role ? "team.member_update" : "team.member_remove",
      { type: "team", id: teamId },
      {
        team: team.name,
        member: { id: memberId, kind: named!.kind, name: named!.name },
        role: role ? { from: member.role, to: role } : member.role,
      },
    );
    return teamRow(tx, teamId);
  });
  return view(t);
}
