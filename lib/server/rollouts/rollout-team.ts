import "server-only";
import type { RouteContract } from "@/lib/contracts/route";
import { matchesSelector } from "@/lib/domain/selector";
import { storedScope, type TeamGrant } from "@/lib/domain/teams";
import type { Actor } from "@/lib/server/audit/record-audit";
import type { Principal } from "@/lib/server/auth/principal";
import type { Tx } from "@/lib/server/db/client";
import { actingTeam, actorFor } from "@/lib/server/teams/acting-team";

// A team's rollout reaches only the clusters in the team's scope: the plan picks them at creation
// (clusters that match later are never added), and each cluster is judged again, by its labels and
// the team's scope as they are then, in the transaction that starts its upgrade.

/** The team a rollout belongs to, with its scope (its grant to the caller who made it). */
export type RolloutTeam = Pick<TeamGrant, "teamId" | "team" | "selector">;

/**
 * Whose rollout the caller plans or starts (lib/server/teams/acting-team.ts: the fleet's for a
 * fleet operator naming no team; else the named team, or the caller's only team they operate in),
 * and the actor it is audited under: through a team, that team, even when the route's
 * authorization named another of theirs.
 */
export async function rolloutOwner(
  principal: Principal,
  named: string | undefined,
  contract: Pick<RouteContract, "role" | "teamRole">,
): Promise<{ actor: Actor; team: RolloutTeam | null }> {
  const team = await actingTeam(principal, named, contract);
  return { actor: actorFor(principal, team, contract), team };
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
