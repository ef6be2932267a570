import "server-only";
import { hasRole, type Role } from "@/lib/domain/roles";
import { storedScope, type TeamGrant } from "@/lib/domain/teams";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import type { Principal } from "@/lib/server/auth/principal";
import { NO_SUCH_TEAM } from "@/lib/server/auth/authorize";
import type { RouteContract } from "@/lib/contracts/route";
import type { Actor } from "@/lib/server/audit/record-audit";

/**
 * The team something is made for (a token, a rollout, a subscription, a view), from the `team` a
 * request names (its name or id): one of the caller's teams where they hold the route's team role
 * (`teamRole`, else `role`), or, for a fleet role at the route's `role`, any team. Not named: a
 * fleet role makes it for the fleet (null); someone whose roles come from teams makes it for
 * their one team with that role, and must name it when they have several. A team the caller
 * cannot act for reads as one that does not exist.
 */
export async function actingTeam(
  principal: Principal,
  named: string | undefined,
  contract: Pick<RouteContract, "role" | "teamRole">,
): Promise<TeamGrant | null> {
  const fleetReaches = !!principal.role && hasRole(principal.role, contract.role);
  const role = contract.teamRole ?? contract.role;
  const mine = principal.teams.filter((g) => hasRole(g.role, role));
  if (named === undefined) {
    if (fleetReaches) return null;
    if (mine.length === 1) return mine[0]!;
    if (!mine.length) throw new ApiError("forbidden", `This needs the ${role} role in a team; you hold it in none.`);
    throw new ApiError(
      "invalid_request",
      `Name the team this is for: you are ${role} in ${mine.map((g) => g.team).join(", ")}.`,
      {
        teams: mine.map((g) => g.team),
      },
    );
  }
  const held = mine.find((g) => g.team === named || g.teamId === named);
  if (held) return held;
  if (fleetReaches) {
    const team = await db().team.findFirst({
      where: { OR: [{ id: named }, { name: named }] },
      select: { id: true, name: true, selector: true },
    });
    const selector = team ? storedScope(team.selector) : null;
    if (team && selector) return { teamId: team.id, team: team.name, role: principal.role!, selector };
  }
  throw new ApiError("not_found", NO_SUCH_TEAM);
}

/**
 * The teams whose own things (tokens, rollouts, subscriptions, views) a `clusters`-scoped answer
 * holds: null for a fleet role (everything), else the caller's teams where they hold `role`.
 */
export function teamsInReach(principal: Principal, scope: unknown[] | null, role: Role): string[] | null {
  return scope === null ? null : principal.teams.filter((g) => hasRole(g.role, role)).map((g) => g.teamId);
}

/**
 * The actor a thing made for `team` is audited under: through a team (no fleet role at the route's
 * role), that team and the caller's role in it, even when the authorization step named another of
 * their teams; otherwise the caller as authorized.
 */
export function actorFor(
  principal: Principal,
  team: TeamGrant | null,
  contract: Pick<RouteContract, "role" | "teamRole">,
): Actor {
  const throughTeam = team && !hasRole(principal.role, contract.role);
  return throughTeam ? { ...principal.actor, allowedAs: { role: team.role, team: team.team } } : principal.actor;
}
