import "server-only";
import type { RouteContract } from "@/lib/contracts/route";
import { hasRole, type Role } from "@/lib/domain/roles";
import { accessOn, highestRole, scopeFor, type AccessReason } from "@/lib/domain/teams";
import type { Selector } from "@/lib/domain/selector";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { accessOf, type Principal } from "./principal";

// The one authorization step of the admin API (lib/server/api/admin-route.ts): the caller's roles
// against the route's declared role and scope (lib/contracts/route.ts), before the handler runs.

export type Authorized = {
  /** The caller, its actor carrying the role and team the call is allowed under (audited). */
  principal: Principal;
  /**
   * For `clusters` and `request` routes: the team selectors the answer is bounded to; null for the
   * whole fleet.
   */
  scope: Selector[] | null;
};

/** Said for an unknown cluster and for one outside the caller's teams alike: no existence leak. */
export const NO_SUCH_CLUSTER = "No cluster with this id.";
export const NO_SUCH_TEAM = "No team with this id.";

/**
 * What a team may own, how to find its owner, and what an unknown id answers (the services say
 * the same words, so one outside the caller's teams reads exactly like one that does not exist).
 */
const OWNED = {
  token: {
    missing: "No registration token with this id.",
    owner: (id: string) => db().registrationToken.findUnique({ where: { id }, select: { teamId: true } }),
  },
  rollout: {
    missing: "No rollout with this id.",
    owner: (id: string) => db().rollout.findUnique({ where: { id }, select: { teamId: true } }),
  },
  webhook: {
    missing: "No webhook subscription has this id.",
    owner: (id: string) => db().webhookSubscription.findUnique({ where: { id }, select: { teamId: true } }),
  },
  view: {
    missing: "No saved view with this id.",
    owner: (id: string) => db().savedView.findUnique({ where: { id }, select: { teamId: true } }),
  },
} as const;

export const NO_SUCH_REQUEST = "No registration request with this id.";
export const noWaitingRequest = (name: string) => `No registration request for the name ${name} is waiting for a decision.`;

function refuseRole(required: Role, held: Role | null, where: string): never {
  throw new ApiError(
    "forbidden",
    held
      ? `This needs the ${required} role or higher ${where}; you are ${held}.`
      : `This needs the ${required} role or higher ${where}; you have no role there.`,
  );
}

function allowed(principal: Principal, reason: AccessReason): Principal {
  return { ...principal, actor: { ...principal.actor, allowedAs: { role: reason.role, team: reason.team } } };
}

/** The labels of a cluster, or null when there is no such cluster. */
export async function clusterLabels(id: string): Promise<Record<string, string> | null> {
  const cluster = await db().cluster.findUnique({
    where: { id },
    select: { labels: { select: { key: true, value: true } } },
  });
  return cluster ? Object.fromEntries(cluster.labels.map((l) => [l.key, l.value])) : null;
}

export async function authorize(
  contract: RouteContract,
  principal: Principal,
  params: Record<string, string>,
): Promise<Authorized> {
  const fleetRole = principal.role;
  // A fleet role at the route's role passes every scope.
  if (fleetRole && hasRole(fleetRole, contract.role))
    return { principal: allowed(principal, { role: fleetRole, team: null }), scope: null };
  const access = accessOf(principal);
  // Through a team, some routes need more than the fleet role they need (lib/contracts/route.ts).
  contract = { ...contract, role: contract.teamRole ?? contract.role };
  switch (contract.scope) {
    case "fleet":
      return refuseRole(contract.role, fleetRole, "across the fleet (team roles do not reach this)");
    case "clusters":
    case "member": {
      const best = highestRole({ fleetRole: null, teams: principal.teams });
      if (!best || !hasRole(best, contract.role)) refuseRole(contract.role, highestRole(access), "in a team");
      const scope = scopeFor(access, contract.role) ?? [];
      const team = principal.teams.find((g) => hasRole(g.role, contract.role))!;
      // Lists cover several teams at once: the audit names the first that allowed it.
      return { principal: allowed(principal, { role: contract.role, team: team.team }), scope };
    }
    case "cluster": {
      const id = params.id ?? "";
      const labels = await clusterLabels(id);
      const reason = labels ? accessOn(access, labels) : null;
      if (!reason) throw new ApiError("not_found", NO_SUCH_CLUSTER);
      if (!hasRole(reason.role, contract.role)) refuseRole(contract.role, reason.role, "on this cluster");
      return { principal: allowed(principal, reason), scope: null };
    }
    case "token":
    case "rollout":
    case "webhook":
    case "view": {
      const kind = OWNED[contract.scope];
      const row = await kind.owner(params.id ?? "");
      const grant = row?.teamId ? principal.teams.find((g) => g.teamId === row.teamId) : undefined;
      if (!grant && fleetRole) refuseRole(contract.role, fleetRole, "across the fleet");
      if (!grant) throw new ApiError("not_found", kind.missing);
      if (!hasRole(grant.role, contract.role)) refuseRole(contract.role, grant.role, `in team ${grant.team}`);
      return { principal: allowed(principal, { role: grant.role, team: grant.team }), scope: null };
    }
    case "request": {
      const idOrName = params.id ?? "";
      const rows = await db().registrationRequest.findMany({
        where: { OR: [{ id: idOrName }, { name: idOrName, state: "pending" }] },
        select: { labels: true },
        take: 50,
      });
      let reason: AccessReason | null = null;
      for (const r of rows) {
        const on = accessOn({ fleetRole: null, teams: principal.teams }, JSON.parse(r.labels) as Record<string, string>);
        if (on && (!reason || !hasRole(reason.role, on.role))) reason = on;
      }
      if (!reason && fleetRole) refuseRole(contract.role, fleetRole, "across the fleet");
      if (!reason) throw new ApiError("not_found", idOrName.startsWith("rr_") ? NO_SUCH_REQUEST : noWaitingRequest(idOrName));
      if (!hasRole(reason.role, contract.role)) refuseRole(contract.role, reason.role, "on this request");
      return { principal: allowed(principal, reason), scope: scopeFor(access, contract.role) ?? [] };
    }
    case "team": {
      const grant = principal.teams.find((g) => g.teamId === params.id);
      // A fleet role sees every team: below the route's role it is refused, not hidden.
      if (!grant && fleetRole) refuseRole(contract.role, fleetRole, "across the fleet");
      if (!grant) throw new ApiError("not_found", NO_SUCH_TEAM);
      if (!hasRole(grant.role, contract.role)) refuseRole(contract.role, grant.role, `in team ${grant.team}`);
      return { principal: allowed(principal, { role: grant.role, team: grant.team }), scope: null };
    }
  }
}
