import "server-only";
import { hasRole } from "@/lib/domain/roles";
import { matchesSelector, type Selector } from "@/lib/domain/selector";
import { storedScope } from "@/lib/domain/teams";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import type { Principal } from "@/lib/server/auth/principal";
import { db, type Tx } from "@/lib/server/db/client";

// A team's rollout reaches only the clusters in the team's scope: the plan picks them at creation
// (clusters that match later are never added), and each cluster is judged again, by its labels and
// the team's scope as they are then, in the transaction that starts its upgrade.

/** The team a rollout belongs to, with its scope. */
export type RolloutTeam = { teamId: string; team: string; selector: Selector };

/**
 * Whose rollout the caller plans or starts, and the actor it is audited under. A fleet operator
 * starts the fleet's (or, naming `team`, that team's: bounded to its scope, its operators act on
 * it); anyone else starts one of a team they operate in: the one `team` names, or their only one.
 */
export async function rolloutOwner(
  principal: Principal,
  requested: string | undefined,
): Promise<{ actor: Actor; team: RolloutTeam | null }> {
  if (hasRole(principal.role, "operator")) {
    if (requested === undefined) return { actor: principal.actor, team: null };
    const row = await db().team.findFirst({
      where: { OR: [{ id: requested }, { name: requested }] },
      select: { id: true, name: true, selector: true },
    });
    if (!row) throw new ApiError("invalid_request", `No team named ${requested}.`, [{ field: "team", message: "unknown team" }]);
    const selector = storedScope(row.selector);
    if (!selector)
      throw new ApiError("invalid_request", `Team ${row.name}'s scope is not usable; fix it before planning its rollouts.`, [
        { field: "team", message: "the team's scope is not usable" },
      ]);
    return { actor: principal.actor, team: { teamId: row.id, team: row.name, selector } };
  }
  const operated = principal.teams.filter((g) => hasRole(g.role, "operator"));
  const grant =
    requested === undefined
      ? operated.length === 1
        ? operated[0]
        : undefined
      : operated.find((g) => g.teamId === requested || g.team === requested);
  if (requested !== undefined && !grant)
    // One answer whether the team exists or not: a team's name tells nothing about it.
    throw new ApiError("forbidden", `Starting a rollout for team ${requested} needs the operator role in it.`);
  if (!grant)
    throw new ApiError(
      "invalid_request",
      `You operate in several teams; name the rollout's team (${operated.map((g) => g.team).join(", ")}).`,
      [{ field: "team", message: `name one of ${operated.map((g) => g.team).join(", ")}` }],
    );
  return {
    actor: { ...principal.actor, allowedAs: { role: grant.role, team: grant.team } },
    team: { teamId: grant.teamId, team: grant.team, selector: grant.selector },
  };
}

/**
 * Why a team rollout may not start this cluster's upgrade now, or null: read in the transaction
 * that would start it, so a label change or a scope edit since the plan is seen.
 */
export async function outsideTeamScope(tx: Tx, teamId: string, clusterId: string): Promise<string | null> {
  const team = await tx.team.findUnique({ where: { id: teamId }, select: { name: true, selector: true } });
  if (!team) return "its team was deleted";
  const selector = storedScope(team.selector);
  if (!selector) return `team ${team.name}'s scope is not usable`;
  const labels = await tx.clusterLabel.findMany({ where: { clusterId }, select: { key: true, value: true } });
  const own = Object.fromEntries(labels.map((l) => [l.key, l.value]));
  return matchesSelector(own, selector) ? null : `outside team ${team.name}'s scope at its turn`;
}
