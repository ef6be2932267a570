import "server-only";
import { cookies } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { roleOf, type ConsoleRoute } from "@/lib/domain/page-roles";
import { hasRole, type Role } from "@/lib/domain/roles";
import { principalFromSession, type Principal } from "./principal";

/**
 * For a console page, named by its entry in lib/domain/page-roles.ts: the signed-in user, or a
 * redirect to sign-in; a role below the page's renders the 403 page (the API enforces the same
 * roles independently).
 */
export function requirePage(route: ConsoleRoute): Promise<Principal> {
  return requireRole(roleOf(route));
}

/** The signed-in user with at least `role`, else sign-in or the 403 page. */
export async function requireRole(role: Role): Promise<Principal> {
  const principal = await principalFromSession(await cookies());
  if (!principal) redirect("/login");
  if (!hasRole(principal.role, role)) forbidden();
  return principal;
}

export async function currentPrincipal(): Promise<Principal | null> {
  return principalFromSession(await cookies());
}
