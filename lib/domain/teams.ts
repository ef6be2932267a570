import { z } from "zod";
import { DNS_LABEL } from "./labels";
import { hasRole, higherRole, ROLES, type Role } from "./roles";
import { formatSelector, matchesSelector, parseSelector, SelectorError, type Requirement, type Selector } from "./selector";

// Teams: a label selector (the scope) and members with a role inside it. Whoever has a fleet role
// sees and acts on every cluster with it; whoever has only team roles sees the clusters their
// teams' scopes match, and acts on each with the highest role one of those teams gives them.
// Clusters enter and leave a scope by their labels alone, so the keys a scope reads are locked
// for anyone acting through a team (lockedScopeKeys): a team cannot move a cluster out of its
// scope, nor into another's.

export const teamNameSchema = z.string().trim().regex(DNS_LABEL, "lowercase letters, digits and '-', at most 63");

/**
 * Why a scope selector cannot be a team's scope, or null. It must parse within the selector limits
 * and name at least one label value (`env=prod`, `team in (payments,data)`): a scope of only
 * `key` or negative terms takes in every cluster that lacks a label, or every cluster that has
 * one, which is no boundary at all.
 */
export function scopeProblem(text: string): string | null {
  let selector: Selector;
  try {
    selector = parseSelector(text);
  } catch (err) {
    if (err instanceof SelectorError) return err.message;
    throw err;
  }
  if (selector.length === 0) return "a team's scope cannot be empty: name the labels its clusters carry, e.g. team=payments";
  if (!selector.some((r) => r.op === "in"))
    return `"${text.trim()}" would match clusters by the absence or mere presence of a label; a scope names at least one label value (key=value or key in (...))`;
  return null;
}

/**
 * A team's stored scope, parsed, or null when it is not a usable scope (saved before a rule it now
 * breaks): such a team sees and locks nothing until a fleet admin fixes it.
 */
export function storedScope(text: string): Selector | null {
  return scopeProblem(text) === null ? parseSelector(text) : null;
}

export const scopeSelectorSchema = z
  .string()
  .trim()
  .superRefine((text, ctx) => {
    const problem = scopeProblem(text);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const TEAM_ROLES = ROLES;
export const teamRoleSchema = z.enum(TEAM_ROLES, { error: "a team role is viewer, operator or admin" });

export const createTeamSchema = z
  .object({
    name: teamNameSchema,
    description: z.string().trim().max(500).optional(),
    selector: scopeSelectorSchema,
  })
  .strict();

export const updateTeamSchema = z
  .object({
    name: teamNameSchema.optional(),
    description: z.string().trim().max(500).nullable().optional(),
    selector: scopeSelectorSchema.optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "name at least one field" });

/** A member: exactly one of a user (by id or email), an API key (by id) or an SSO group. */
export const addTeamMemberSchema = z
  .object({
    user: z.string().trim().min(1).max(320).optional(),
    apiKey: z.string().trim().min(1).max(100).optional(),
    ssoGroup: z.string().trim().min(1).max(200).optional(),
    role: teamRoleSchema,
  })
  .strict()
  .refine((m) => [m.user, m.apiKey, m.ssoGroup].filter((v) => v !== undefined).length === 1, {
    message: "name exactly one of user, apiKey and ssoGroup",
    path: ["user"],
  });

export const updateTeamMemberSchema = z.object({ role: teamRoleSchema }).strict();

/** One team's grant to a caller: its scope (parsed) and the caller's role in it. */
export type TeamGrant = { teamId: string; team: string; role: Role; selector: Selector };

/** What a caller may do: a fleet role (null: none) and the grants of their teams. */
export type Access = { fleetRole: Role | null; teams: readonly TeamGrant[] };

/** Why a caller may act on a cluster: the fleet role, or a team whose scope matched. */
export type AccessReason = { role: Role; team: string | null };

/**
 * The caller's role on a cluster with these labels, and the grant it comes from (the fleet role
 * when it is at least as high as every matching team's); null when the cluster is outside all of
 * the caller's scopes and they have no fleet role: for them it does not exist.
 */
export function accessOn(access: Access, labels: Record<string, string>): AccessReason | null {
  let best: AccessReason | null = access.fleetRole ? { role: access.fleetRole, team: null } : null;
  for (const grant of access.teams) {
    if (!matchesSelector(labels, grant.selector)) continue;
    if (!best || !hasRole(best.role, grant.role)) best = { role: grant.role, team: grant.team };
  }
  return best;
}

/** The highest role the caller holds anywhere (a fleet role or in any team), null when none. */
export function highestRole(access: Access): Role | null {
  return access.teams.reduce<Role | null>((best, g) => higherRole(best, g.role), access.fleetRole);
}

/**
 * The team selectors that bound what a caller sees, for `role` at least: null when their fleet
 * role covers the whole fleet; otherwise the selectors of their teams that grant `role` (an empty
 * list: nothing).
 */
export function scopeFor(access: Access, role: Role): Selector[] | null {
  if (access.fleetRole && hasRole(access.fleetRole, role)) return null;
  return access.teams.filter((g) => hasRole(g.role, role)).map((g) => g.selector);
}

/**
 * Whether something with these labels is inside a bounded answer (`scope` as scopeFor gives it):
 * null is the whole fleet, an empty list nothing.
 */
export function withinScope(scope: readonly Selector[] | null, labels: Record<string, string>): boolean {
  return scope === null || scope.some((s) => matchesSelector(labels, s));
}

/** Which of a scope's terms a cluster's labels satisfy, in the scope's own words (the cluster page's "why"). */
export function matchedTerms(selector: Selector, labels: Record<string, string>): string[] {
  return selector.filter((r: Requirement) => matchesSelector(labels, [r])).map((r) => formatSelector([r]));
}

/**
 * The labels a team's scope pins to one value (`key=value`, or `key in (value)`): what its tokens
 * must fix so their clusters land in the scope (the console pre-fills them). Terms with a choice of
 * values are left to whoever mints the token.
 */
export function pinnedLabels(selector: Selector): Record<string, string> {
  return Object.fromEntries(selector.flatMap((r) => (r.op === "in" && r.values.length === 1 ? [[r.key, r.values[0]!]] : [])));
}
