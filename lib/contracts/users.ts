import { z } from "zod";
import { createApiKeySchema } from "@/lib/domain/api-keys";
import { FLEET_ROLES } from "@/lib/domain/roles";
import { createUserSchema, updateUserSchema } from "@/lib/domain/users";
import { isoTime, itemsOf } from "./common";
import { route } from "./route";

// Console users and API keys: an admin's business.

/** A fleet role, or none: only what their teams give (lib/domain/teams.ts). */
const roleSchema = z.enum(FLEET_ROLES);

export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: roleSchema,
  disabled: z.boolean(),
  /** Signs in through single sign-on (linked to an OIDC subject); while a role mapping is configured, its role is the IdP's. */
  sso: z.boolean(),
  /** Has a password (false: added with a set-password link not used yet, or SSO only). */
  passwordSet: z.boolean(),
  lastLoginAt: isoTime.nullable(),
  createdAt: isoTime,
  /** Client addresses their password sign-in is locked from now (too many failures from there). */
  lockedFrom: z.array(z.string()),
});
export type User = z.infer<typeof userSchema>;

/** A set-password link: shown once, to the admin who asked for it (never stored in the query cache). */
export const passwordLinkSchema = z.object({ url: z.string().url(), expiresAt: isoTime });
export type PasswordLink = z.infer<typeof passwordLinkSchema>;
/** The answer to adding a user: their link when no password was typed. */
export const createdUserSchema = userSchema.extend({ passwordLink: passwordLinkSchema.nullable() });
export type CreatedUser = z.infer<typeof createdUserSchema>;
export type UserInput = z.input<typeof createUserSchema>;
export type UserPatch = z.input<typeof updateUserSchema>;

/** creator_disabled: its creator is disabled or gone, so the key no longer works. */
export const API_KEY_STATUSES = ["active", "expired", "revoked", "creator_disabled"] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  role: roleSchema,
  /** The lower of its role and its creator's current role; null when the creator is disabled or gone. */
  effectiveRole: roleSchema.nullable(),
  status: z.enum(API_KEY_STATUSES),
  createdBy: z.object({ id: z.string(), email: z.string(), disabled: z.boolean() }).nullable(),
  lastUsedAt: isoTime.nullable(),
  expiresAt: isoTime.nullable(),
  revokedAt: isoTime.nullable(),
  createdAt: isoTime,
});
export type ApiKey = z.infer<typeof apiKeySchema>;
/** The mint answer: the only place the key itself ever appears (never put in the query cache). */
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;
export type ApiKeyInput = z.input<typeof createApiKeySchema>;

export const userRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/users",
    summary: "Console users",
    role: "admin",
    scope: "fleet",
    response: itemsOf(userSchema),
  }),
  create: route({
    method: "POST",
    path: "/api/v1/users",
    summary:
      "Add a user (a signed-in admin only: an API key cannot create users); without a password the answer holds a one-time set-password link",
    role: "admin",
    scope: "fleet",
    session: true,
    body: createUserSchema,
    response: createdUserSchema,
    status: 201,
    noStore: true,
  }),
  passwordLink: route({
    method: "POST",
    path: "/api/v1/users/{id}/password-link",
    summary:
      "A one-time set-password link for a user (replaces any earlier link; not for single sign-on users); a signed-in admin only",
    role: "admin",
    scope: "fleet",
    session: true,
    response: passwordLinkSchema,
    status: 201,
    noStore: true,
  }),
  update: route({
    method: "PATCH",
    path: "/api/v1/users/{id}",
    summary: "Change a user's role, password (ends their sessions) or disable them (and their API keys); a signed-in admin only",
    role: "admin",
    scope: "fleet",
    session: true,
    body: updateUserSchema,
    response: userSchema,
  }),
  clearSignInLocks: route({
    method: "DELETE",
    path: "/api/v1/users/{id}/sign-in-locks",
    summary: "Let a user sign in again from the addresses too many failures locked, and forget their slowdown",
    role: "admin",
    scope: "fleet",
    session: true,
    response: z.object({ cleared: z.array(z.string()) }),
  }),
};

export const apiKeyRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/api-keys",
    summary: "API keys, with their creator and the role they act with",
    role: "admin",
    scope: "fleet",
    response: itemsOf(apiKeySchema),
  }),
  create: route({
    method: "POST",
    path: "/api/v1/api-keys",
    summary: "Mint an API key (shown once; a signed-in admin only: a key cannot mint keys)",
    role: "admin",
    scope: "fleet",
    session: true,
    body: createApiKeySchema,
    response: createdApiKeySchema,
    status: 201,
    noStore: true,
  }),
  revoke: route({
    method: "DELETE",
    path: "/api/v1/api-keys/{id}",
    summary: "Revoke an API key",
    role: "admin",
    scope: "fleet",
    response: apiKeySchema,
  }),
};
