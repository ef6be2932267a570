import "server-only";
import { cookies } from "next/headers";
import { cache } from "react";
import { forbidden, notFound, redirect } from "next/navigation";
import { mayOpen, pageOf, type ConsolePage, type ConsoleRoute } from "@/lib/domain/page-roles";
import { hasRole, higherRole, type Role } from "@/lib/domain/roles";
import { accessOn, highestRole, type AccessReason } from "@/lib/domain/teams";
import { clusterLabels } from "./authorize";
import { accessOf, principalFromSession, type Principal } from "./principal";

/**
 * For a console page, named by its entry in lib/domain/page-roles.ts: the signed-in user, or a
 * redirect to sign-in; a caller who may not open it (lib/domain/page-roles.ts, mayOpen) gets the
 * 403 page (the API enforces the same roles and scopes independently).
 */
export function requirePage(route: ConsoleRoute): Promise<Principal> {
  return requirePageEntry(pageOf(route));
}

/** As requirePage; `home`: where a caller with no role at all (in the fleet or any team) is sent instead of the 403 page. */
export async function requirePageEntry(page: ConsolePage, options: { home?: string } = {}): Promise<Principal> {
  const principal = await principalFromSession(await cookies());
  if (!principal) redirect("/login");
  const access = accessOf(principal);
  if (!mayOpen(page, access)) {
    if (options.home && !highestRole(access)) redirect(options.home);
    forbidden();
  }
  return principal;
}

/** The signed-in user with at least `role` across the fleet, else sign-in or the 403 page. */
export async function requireRole(role: Role): Promise<Principal> {
  const principal = await principalFromSession(await cookies());
  if (!principal) redirect("/login");
  if (!hasRole(principal.role, role)) forbidden();
  return principal;
}

/**
 * On a cluster's pages: the caller's role on it and why, or the 404 page when they cannot see it
 * (out of their teams' scopes reads as no such cluster, as in the API). Unknown ids are left to
 * the page's own not-found state for fleet roles.
 */
export async function clusterAccess(principal: Principal, clusterId: string): Promise<AccessReason | null> {
  // A fleet admin has every role already; without teams the fleet role is all there is.
  if (principal.role === "admin" || (principal.role && !principal.teams.length)) return { role: principal.role, team: null };
  const labels = await clusterLabels(clusterId);
  const reason = labels ? accessOn(accessOf(principal), labels) : null;
  if (!reason) notFound();
  return reason;
}

/**
 * Whether the signed-in caller may see a cluster at all (once per request): what a cluster page
 * checks before its title or anything else names the cluster, so a cluster outside a team
 * member's scope reads as one that does not exist.
 */
export const canSeeCluster = cache(async (clusterId: string): Promise<boolean> => {
  const principal = await currentPrincipal();
  if (!principal) return false;
  if (principal.role) return true;
  const labels = await clusterLabels(clusterId);
  return !!labels && accessOn(accessOf(principal), labels) !== null;
});

/**
 * On the page of something a team may own (a rollout): the caller's role on it, the higher of
 * their fleet role and their role in the owning team; null when they cannot see it (the page then
 * answers 404, as the API does for an id outside their teams).
 */
export function ownedAccess(principal: Principal, teamId: string | null): Role | null {
  const team = teamId ? (principal.teams.find((g) => g.teamId === teamId)?.role ?? null) : null;
  return higherRole(principal.role, team);
}

export async function currentPrincipal(): Promise<Principal | null> {
  return principalFromSession(await cookies());
}
