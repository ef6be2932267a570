import "server-only";
import type { SavedView, SavedViewInput } from "@/lib/contracts/clusters";
import { hasRole, type Role } from "@/lib/domain/roles";
import type { TeamGrant } from "@/lib/domain/teams";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { NO_SUCH_TEAM } from "@/lib/server/auth/authorize";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";

// Saved views of the cluster list: named query strings, each owned by the fleet (teamId null,
// shared by everyone with a fleet role) or by one team (seen by its members only: a fleet view's
// query may name labels of clusters a team never sees, and a team's may name its own). The query
// is kept as the list's URL has it, so opening a view is following a link, and the list bounds
// what it shows by the reader's scope whoever saved it.

type Row = { id: string; name: string; query: string; createdBy: string; createdAt: Date; teamId: string | null };
const view = (r: Row, team: string | null): SavedView => ({
  id: r.id,
  name: r.name,
  query: r.query,
  createdBy: r.createdBy,
  createdAt: r.createdAt.toISOString(),
  team,
});

/** Who lists or saves views: the actor, the fleet role, and the teams (lib/server/auth/principal.ts). */
export type ViewCaller = { actor: Actor; role: Role | null; teams: readonly TeamGrant[] };

/** Only the list's own parameters are kept (a cursor or a stray parameter is dropped). */
const VIEW_PARAMS = ["status", "selector", "group", "q", "sort", "order", "pageSize"];

export function normalizeViewQuery(query: string): string {
  const params = new URLSearchParams(query.replace(/^\?/, ""));
  const kept = new URLSearchParams();
  for (const [k, v] of params) if (VIEW_PARAMS.includes(k) && v.trim()) kept.set(k, v);
  return kept.toString();
}

/**
 * The views a caller sees: the fleet's when they hold a fleet role, and those of each of their
 * teams. A fleet role does not list other teams' views (they are that team's own; a fleet operator
 * may still delete one by its id).
 */
export async function listSavedViews(caller: ViewCaller): Promise<{ items: SavedView[] }> {
  const teamNames = new Map(caller.teams.map((g) => [g.teamId, g.team]));
  const rows = await db().savedView.findMany({
    where: {
      OR: [...(caller.role ? [{ teamId: null }] : []), ...(teamNames.size ? [{ teamId: { in: [...teamNames.keys()] } }] : [])],
    },
    orderBy: { name: "asc" },
  });
  return { items: rows.map((r) => view(r, r.teamId ? (teamNames.get(r.teamId) ?? null) : null)) };
}

/**
 * Whose view a new one is: the team named in `team` (by name or id; one the caller operates in),
 * else the fleet's for a fleet operator, else the one team the caller operates in. Someone who
 * operates in several teams and has no fleet role names the team.
 */
function ownerFor(caller: ViewCaller, team: string | undefined): { grant: TeamGrant | null; allowedAs: Actor["allowedAs"] } {
  if (team !== undefined) {
    const grant = caller.teams.find((g) => g.team === team || g.teamId === team);
    if (!grant) throw new ApiError("not_found", NO_SUCH_TEAM, [{ field: "team", message: `you are in no team ${team}` }]);
    if (!hasRole(grant.role, "operator"))
      throw new ApiError(
        "forbidden",
        `Saving a view for team ${grant.team} needs the operator role in it; you are ${grant.role}.`,
      );
    return { grant, allowedAs: { role: grant.role, team: grant.team } };
  }
  if (caller.role && hasRole(caller.role, "operator")) return { grant: null, allowedAs: { role: caller.role, team: null } };
  const operating = caller.teams.filter((g) => hasRole(g.role, "operator"));
  if (operating.length === 1) return { grant: operating[0]!, allowedAs: { role: operating[0]!.role, team: operating[0]!.team } };
  if (!operating.length) throw new ApiError("forbidden", "Saving a view needs the operator role, in the fleet or in a team.");
  throw new ApiError("invalid_request", `Say which team the view is for: ${operating.map((g) => g.team).join(", ")}.`, [
    { field: "team", message: `is required: one of ${operating.map((g) => g.team).join(", ")}` },
  ]);
}

/**
 * Saves a view for the fleet or for a team (ownerFor). Names are unique across the fleet, so
 * another team's view can hold a name: the refusal says only that the name is taken, in the same
 * words whoever holds it.
 */
export async function createSavedView(caller: ViewCaller, input: SavedViewInput): Promise<SavedView> {
  const query = normalizeViewQuery(input.query);
  const { grant, allowedAs } = ownerFor(caller, input.team);
  const actor: Actor = { ...caller.actor, allowedAs };
  return inTransaction(async (tx) => {
    if (await tx.savedView.findUnique({ where: { name: input.name }, select: { id: true } }))
      throw new ApiError("conflict", `A view named "${input.name}" already exists; choose another name.`);
    const row = await tx.savedView.create({
      data: { name: input.name, query, createdBy: caller.actor.label, teamId: grant?.teamId ?? null },
    });
    await recordAudit(
      tx,
      actor,
      "view.create",
      { type: "view", id: row.id },
      { name: row.name, query, ...(grant ? { team: grant.team } : {}) },
    );
    return view(row, grant?.team ?? null);
  });
}

export async function deleteSavedView(actor: Actor, id: string): Promise<void> {
  await inTransaction(async (tx) => {
    const row = await tx.savedView.findUnique({ where: { id } });
    if (!row) throw new ApiError("not_found", "No saved view with this id.");
    await tx.savedView.delete({ where: { id } });
    await recordAudit(tx, actor, "view.delete", { type: "view", id }, { name: row.name, query: row.query });
  });
}
