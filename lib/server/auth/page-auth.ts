import "server-only";
import { cookies } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { hasRole, type Role } from "@/lib/domain/roles";
import { principalFromSession, type Principal } from "./principal";

/**
 * For server pages: the signed-in user, or a redirect to sign-in; a role below `role`
 * renders the 403 page (the API enforces the same roles independently).
 */
export async function requirePage(role: Role = "viewer"): Promise<Principal> {
  const principal = await principalFromSession(await cookies());
  if (!principal) redirect("/login");
  if (!hasRole(principal.role, role)) forbidden();
  return principal;
}

export async function currentPrincipal(): Promise<Principal | null> {
  return principalFromSession(await cookies());
}
