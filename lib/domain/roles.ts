export const ROLES = ["viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** admin > operator > viewer: does `role` grant at least `required`? */
export function hasRole(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required);
}

/** The lesser of two roles (an API key acts with at most its creator's current role). */
export function lowerRole(a: Role, b: Role): Role {
  return hasRole(a, b) ? b : a;
}
