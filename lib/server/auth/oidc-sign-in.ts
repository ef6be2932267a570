import "server-only";
import { emailSchema } from "@/lib/domain/email";
import { roleFromClaims } from "@/lib/domain/sso-roles";
import { recordAudit } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";

/**
 * Why a single sign-on was refused; next-auth carries the code to the login page as `?error=`,
 * where app/login/login-form.tsx says it in words.
 */
export const SSO_REFUSALS = {
  disabled: "SsoAccountDisabled",
  emailTaken: "SsoEmailNotVerified",
} as const;

const NAME_MAX = 100;

function claimText(value: unknown, max: number): string | null {
  return typeof value === "string" && value.trim() ? value.trim().slice(0, max) : null;
}

/**
 * A person signed in at the OpenID Provider: find them by subject, then by email (only an email
 * the provider says is verified links an existing account), or add them; keep their name; and,
 * while a role mapping is configured, set their role from its claim (audited when it changes).
 * Returns the refusal code of a disabled or unlinkable account instead.
 */
export async function signInWithOidc(subject: string, claims: Record<string, unknown>): Promise<{ refused: string } | null> {
  const parsedEmail = emailSchema.safeParse(claims.email);
  const email = parsedEmail.success ? parsedEmail.data : null;
  const emailVerified = claims.email_verified !== false && claims.email_verified !== "false";
  const name = claimText(claims.name, NAME_MAX);
  const mapping = (await getSettings()).ssoRoleMapping;
  const mappedRole = mapping ? roleFromClaims(mapping, claims) : null;

  return db().$transaction(async (tx) => {
    const bySubject = await tx.user.findUnique({ where: { oidcSubject: subject } });
    const byEmail = !bySubject && email ? await tx.user.findUnique({ where: { email } }) : null;
    if (byEmail && !emailVerified) {
      // Someone at the provider claims this account's email without having proven it: not them.
      await recordAudit(
        tx,
        { type: "user", id: null, label: `oidc:${subject}` },
        "auth.signin_failed",
        { type: "user", id: byEmail.id },
        {
          email: byEmail.email,
          method: "oidc",
          reason: "email_not_verified",
        },
      );
      return { refused: SSO_REFUSALS.emailTaken };
    }
    const existing = bySubject ?? byEmail;
    // Everything below is the person's own doing, on their own account.
    const audit = (user: { id: string; email: string }, action: string, details: Record<string, unknown>) =>
      recordAudit(tx, { type: "user", id: user.id, label: user.email }, action, { type: "user", id: user.id }, details);

    if (existing?.disabledAt) {
      await audit(existing, "auth.signin_failed", {
        email: existing.email,
        method: "oidc",
        reason: "disabled",
      });
      return { refused: SSO_REFUSALS.disabled };
    }

    if (!existing) {
      const role = mappedRole ?? "viewer";
      const user = await tx.user.create({
        data: {
          email: email ?? `${subject.toLowerCase()}@oidc.invalid`,
          name,
          role,
          oidcSubject: subject,
          lastLoginAt: new Date(),
        },
      });
      await audit(user, "user.create", {
        via: "oidc",
        role,
        ...(mapping ? { roleFrom: mapping.claim } : {}),
      });
      await audit(user, "auth.sign_in", { method: "oidc" });
      return null;
    }

    // The mapping never demotes the last active admin: that would leave nobody to change it back.
    let role = mappedRole ?? existing.role;
    const keepsLastAdmin =
      existing.role === "admin" && role !== "admin" && (await tx.user.count({ where: { role: "admin", disabledAt: null } })) <= 1;
    if (keepsLastAdmin) role = "admin";
    // An account made before userinfo was read got a placeholder email: the real one replaces it.
    const repairEmail =
      email &&
      existing.email.endsWith("@oidc.invalid") &&
      !(await tx.user.findUnique({ where: { email }, select: { id: true } }));
    const user = await tx.user.update({
      where: { id: existing.id },
      data: {
        oidcSubject: subject,
        lastLoginAt: new Date(),
        role,
        ...(name ? { name } : {}),
        ...(repairEmail ? { email } : {}),
      },
    });
    if (role !== existing.role) {
      await audit(user, "user.update", {
        email: user.email,
        via: "oidc",
        role: { from: existing.role, to: role },
        roleFrom: mapping?.claim,
      });
    }
    await audit(user, "auth.sign_in", {
      method: "oidc",
      ...(keepsLastAdmin ? { roleKept: "the mapping would demote the last active admin" } : {}),
    });
    return null;
  });
}
