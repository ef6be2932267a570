import "server-only";
import type { CreatedUser, User } from "@/lib/contracts/users";
import type { FleetRole } from "@/lib/domain/roles";
import type { CreateUserInput, UpdateUserInput } from "@/lib/domain/users";
import { db } from "@/lib/server/db/client";
import { ApiError } from "@/lib/server/api/errors";
import { hashPassword } from "@/lib/server/auth/password";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { getSettings } from "@/lib/server/settings/settings";
import { lockedAddressesByAccount } from "@/lib/server/auth/login-throttle";
import { mintPasswordLink } from "./password-links";

function view(
  u: {
    id: string;
    email: string;
    name: string | null;
    role: string;
    disabledAt: Date | null;
    lastLoginAt: Date | null;
    createdAt: Date;
    oidcSubject: string | null;
    passwordHash?: string | null;
  },
  lockedFrom: string[] = [],
): User {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    // Written only through the role enum (createUserSchema, updateUserSchema).
    role: u.role as FleetRole,
    disabled: u.disabledAt !== null,
    sso: u.oidcSubject !== null,
    passwordSet: Boolean(u.passwordHash),
    lastLoginAt: u.lastLoginAt?.toISOString() ?? null,
    createdAt: u.createdAt.toISOString(),
    lockedFrom,
  };
}

export async function listUsers(): Promise<User[]> {
  const [users, locked] = await Promise.all([
    db().user.findMany({ orderBy: { createdAt: "asc" }, omit: { passwordHash: false } }),
    lockedAddressesByAccount(),
  ]);
  return users.map((u) => view(u, locked.get(u.email)));
}

/** Adds a user with the password an admin typed, or with none and a one-time set-password link for them. */
export async function createUser(actor: Actor, input: CreateUserInput): Promise<CreatedUser> {
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return db().$transaction(async (tx) => {
    if (await tx.user.findUnique({ where: { email: input.email } })) {
      throw new ApiError("conflict", `A user with the email ${input.email} already exists.`);
    }
    const user = await tx.user.create({ data: { email: input.email, name: input.name ?? null, role: input.role, passwordHash } });
    await recordAudit(
      tx,
      actor,
      "user.create",
      { type: "user", id: user.id },
      { email: user.email, role: user.role, password: passwordHash ? "typed by an admin" : "set-password link" },
    );
    const passwordLink = passwordHash ? null : await mintPasswordLink(tx, actor, user);
    return { ...view({ ...user, passwordHash }), passwordLink };
  });
}

export async function updateUser(actor: Actor, id: string, input: UpdateUserInput): Promise<User> {
  const passwordHash = input.password ? await hashPassword(input.password) : undefined;
  const mapping = input.role ? (await getSettings()).ssoRoleMapping : null;
  const updated = await db().$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id } });
    if (!before) throw new ApiError("not_found", "No such user.");
    // An edit would be undone at their next sign-in (lib/server/auth/oidc-sign-in.ts).
    if (mapping && before.oidcSubject && input.role && input.role !== before.role) {
      throw new ApiError(
        "role_managed_by_sso",
        `${before.email} signs in through single sign-on, and the SSO role mapping sets their role from the “${mapping.claim}” claim at each sign-in; change the mapping or their claim at the provider, or remove the mapping to set roles here.`,
      );
    }
    const demotes = (input.role && input.role !== "admin") || input.disabled === true;
    if (before.role === "admin" && demotes) {
      const admins = await tx.user.count({ where: { role: "admin", disabledAt: null } });
      if (admins <= 1) throw new ApiError("conflict", "This is the last active admin; make another admin first.");
    }
    const user = await tx.user.update({
      where: { id },
      omit: { passwordHash: false },
      data: {
        role: input.role,
        disabledAt: input.disabled === undefined ? undefined : input.disabled ? new Date() : null,
        passwordHash,
        // A new password ends every session signed in with the old one (lib/server/auth/sessions.ts).
        ...(passwordHash ? { sessionVersion: { increment: 1 } } : {}),
      },
    });
    // Their API keys stop working with them (lib/server/auth/principal.ts): name them in the log.
    const stoppedKeys =
      input.disabled === true && !before.disabledAt
        ? await tx.apiKey.findMany({ where: { createdById: id, revokedAt: null }, select: { name: true } })
        : [];
    await recordAudit(
      tx,
      actor,
      "user.update",
      { type: "user", id },
      {
        email: user.email,
        ...(input.role ? { role: { from: before.role, to: input.role } } : {}),
        ...(input.disabled !== undefined ? { disabled: input.disabled } : {}),
        ...(input.password ? { passwordChanged: true } : {}),
        ...(stoppedKeys.length ? { apiKeysStopWorking: stoppedKeys.map((k) => k.name) } : {}),
      },
    );
    return user;
  });
  return view(updated, (await lockedAddressesByAccount()).get(updated.email));
}
