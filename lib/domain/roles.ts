export const ROLES = ["viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** admin > operator > viewer: does `role` grant at least `required`? No role (null) grants nothing. */
export function hasRole(role: Role | null, required: Role): boolean {
  return role !== null && ROLES.indexOf(role) >= ROLES.indexOf(required);
}

/** The lesser of two roles (an API key acts with at most its creator's current role). */
export function lowerRole(a: Role, b: Role): Role {
  return hasRole(a, b) ? b : a;
}

/**
 * A person's or key's role across the whole fleet, or `none`: only what their teams give
 * (lib/domain/teams.ts). Within a team the same three roles apply to the team's clusters.
 */
export const FLEET_ROLES = [...ROLES, "none"] as const;
export type FleetRole = (typeof FLEET_ROLES)[number];

export function isFleetRole(value: unknown): value is FleetRole {
  return typeof value === "string" && (FLEET_ROLES as readonly string[]).includes(value);
}

/** The stored fleet role as a Role, or null for `none`. */
export function fleetRoleOf(value: FleetRole): Role | null {
  return value === "none" ? null : value;
}

/** The higher of two roles, either possibly absent. */
export function higherRole(a: Role | null, b: Role | null): Role | null {
  if (!a) return b;
  if (!b) return a;
  return hasRole(a, b) ? a : b;
}
