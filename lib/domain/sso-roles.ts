import { z } from "zod";
import { hasRole, ROLES, type Role } from "./roles";

/**
 * How single sign-on users get their role: the claim to read (`groups` unless told otherwise)
 * and which of its values make an admin, an operator or a viewer. Null (the default): no mapping,
 * SSO users start as viewers and keep whatever role an admin gives them in the console.
 */
export const SSO_ROLE_MAPPING_LABEL = "SSO role mapping";
const L = SSO_ROLE_MAPPING_LABEL;
const ROLE_WORDS = "admin, operator or viewer";

/** The default role that lets nobody in: a person whose claim matches no rule is refused. */
export const NO_SSO_ROLE = "none";
export const SSO_DEFAULT_ROLES = [...ROLES, NO_SSO_ROLE] as const;

export const ssoRoleMappingSchema = z
  .object(
    {
      claim: z
        .string({ error: `${L}: the role claim must be text.` })
        .trim()
        .min(1, { error: `${L}: name the claim to read, e.g. groups.` })
        .max(200, { error: `${L}: the role claim is at most 200 characters.` }),
      rules: z
        .array(
          z.object(
            {
              value: z
                .string({ error: `${L}: each claim value must be text.` })
                .trim()
                .min(1, { error: `${L}: each rule needs a claim value.` })
                .max(200, { error: `${L}: a claim value is at most 200 characters.` }),
              role: z.enum(ROLES, { error: `${L}: each rule's role is ${ROLE_WORDS}.` }),
            },
            { error: `${L}: each rule is { value, role }.` },
          ),
          { error: `${L}: the rules must be a list.` },
        )
        .min(1, { error: `${L}: name at least one claim value and its role.` })
        .max(100, { error: `${L}: at most 100 rules.` }),
      /** The role of an SSO user whose claim matches no rule; `none` refuses their sign-in. */
      defaultRole: z.enum(SSO_DEFAULT_ROLES, { error: `${L}: the default role is ${ROLE_WORDS}, or none.` }),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `${L} has no field ${issue.keys.join(", ")}.`
          : `${L} must be off (null) or { claim, rules, defaultRole }.`,
    },
  )
  .strict();
export type SsoRoleMapping = z.infer<typeof ssoRoleMappingSchema>;

export const DEFAULT_SSO_ROLE_CLAIM = "groups";

/**
 * The claim's values as strings: a string, a list of strings, or a number/boolean. The name is
 * looked up as it is first (namespaced claims such as `https://example.com/groups` hold dots),
 * then as a dotted path into nested objects (Keycloak's `realm_access.roles`).
 */
export function claimValues(claims: Record<string, unknown>, claim: string): string[] {
  let value: unknown = claims[claim];
  if (value === undefined && claim.includes(".")) {
    value = claim.split(".").reduce<unknown>((at, key) => {
      return at && typeof at === "object" && !Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined;
    }, claims);
  }
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.flatMap((v) => (typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? [String(v)] : []));
}

/**
 * The role the claims give: the highest (admin > operator > viewer) of the rules whose value the
 * claim holds, else the mapping's default; null when that default is `none` (no way in). Values
 * compare exactly (case matters, as in the IdP).
 */
export function roleFromClaims(mapping: SsoRoleMapping, claims: Record<string, unknown>): Role | null {
  const held = new Set(claimValues(claims, mapping.claim));
  let best: Role | null = null;
  for (const rule of mapping.rules) {
    if (held.has(rule.value) && (best === null || !hasRole(best, rule.role))) best = rule.role;
  }
  return best ?? (mapping.defaultRole === NO_SSO_ROLE ? null : mapping.defaultRole);
}

/**
 * Whether the ID token leaves out something we read, so userinfo must be asked: email and name
 * (spec-conformant providers put scope claims only in userinfo unless a `claims` request asks),
 * and the mapping's claim.
 */
export function needsUserinfo(idTokenClaims: Record<string, unknown>, roleClaim: string | null): boolean {
  const missing = (v: unknown) => v === undefined || v === null || v === "";
  if (missing(idTokenClaims.email) || missing(idTokenClaims.name)) return true;
  return roleClaim !== null && claimValues(idTokenClaims, roleClaim).length === 0;
}

/** The rules as the Settings form shows them: one `claim value = role` a line. */
export function formatRuleLines(rules: SsoRoleMapping["rules"]): string {
  return rules.map((r) => `${r.value} = ${r.role}`).join("\n");
}

/**
 * The form's lines back into rules (blank lines skipped; the last `=` splits, so a value may hold
 * one), or the first line that is not `value = role`, in words.
 */
export function parseRuleLines(text: string): { rules: SsoRoleMapping["rules"] } | { problem: string } {
  const rules: SsoRoleMapping["rules"] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.lastIndexOf("=");
    const value = at < 0 ? "" : line.slice(0, at).trim();
    const role =
      at < 0
        ? ""
        : line
            .slice(at + 1)
            .trim()
            .toLowerCase();
    if (!value || !(ROLES as readonly string[]).includes(role)) {
      return { problem: `Line ${i + 1} (“${line}”) is not “claim value = admin, operator or viewer”.` };
    }
    rules.push({ value, role: role as Role });
  }
  return { rules };
}
