import "server-only";
import { hasRole, type Role } from "@/lib/domain/roles";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import type { Principal } from "@/lib/server/auth/principal";
import { db } from "@/lib/server/db/client";

// The team a new object (a webhook subscription, say) is made for: named by the caller, who needs
// `role` in it, or the fleet (null) for a caller whose fleet role is enough and who names none.

export type OwningTeam = { id: string; name: string };

/** A team the caller is not in reads the same whether or not it exists. */
const noSuchTeam = (named: string) => `No team ${named} among yours.`;

/**
 * The team `named` (its name or id) for a caller making something it will own, and the actor to
 * audit it under (the role and team that allowed it). A fleet role at `role` may name any team, or
 * none (the fleet's); a caller without it must name one of their teams where they hold `role`.
 */
export async function owningTeam(
  principal: Principal,
  named: string | undefined,
  role: Role,
  what: string,
): Promise<{ team: OwningTeam | null; actor: Actor }> {
  if (hasRole(principal.role, role)) {
    if (!named) return { team: null, actor: principal.actor };
    const team = await db().team.findFirst({ where: { OR: [{ id: named }, { name: named }] }, select: { id: true, name: true } });
    if (!team) throw new ApiError("not_found", `No team ${named}.`, [{ field: "team", message: "unknown team" }]);
    return { team, actor: principal.actor };
  }
  if (!named) {
    throw new ApiError(
      "invalid_request",
      `Name the team ${what} is for (team): without the fleet ${role} role, you make it for a team where you are ${role}.`,
      [{ field: "team", message: "required without the fleet role" }],
    );
  }
  const grant = principal.teams.find((g) => g.teamId === named || g.team === named);
  if (!grant) throw new ApiError("not_found", noSuchTeam(named), [{ field: "team", message: "not one of your teams" }]);
  if (!hasRole(grant.role, role))
    throw new ApiError("forbidden", `This needs the ${role} role in team ${grant.team}; you are ${grant.role} there.`);
  return {
    team: { id: grant.teamId, name: grant.team },
    actor: { ...principal.actor, allowedAs: { role: grant.role, team: grant.team } },
  };
}

/** The ids of the caller's teams where they hold `role` (what a team-bounded list of owned objects shows). */
export function teamIdsWithRole(principal: Principal, role: Role): string[] {
  return principal.teams.filter((g) => hasRole(g.role, role)).map((g) => g.teamId);
}
