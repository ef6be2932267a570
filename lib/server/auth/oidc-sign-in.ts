import "server-only";
import { createHash } from "node:crypto";
import { emailSchema } from "@/lib/domain/email";
import { SSO_REFUSALS } from "@/lib/domain/sign-in-errors";
import { claimValues, DEFAULT_SSO_ROLE_CLAIM, roleFromClaims } from "@/lib/domain/sso-roles";
import type { FleetRole } from "@/lib/domain/roles";
import { recordAudit } from "@/lib/server/audit/record-audit";
import { db, type Tx } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";

const NAME_MAX = 100;

function claimText(value: unknown, max: number): string | null {
  return typeof value === "string" && value.trim() ? value.trim().slice(0, max) : null;
}

/** An issuer URL as stored and compared: without a trailing slash (OIDC_ISSUER may be written either way). */
function issuerKey(issuer: string): string {
  return issuer.replace(/\/+$/, "");
}

/**
 * The address of an SSO account made without a verified email: one per identity, (issuer,
 * subject) exactly as the provider sent them. Subjects are case-sensitive (`CaseSub` and
 * `casesub` are two people), and may hold characters an address cannot, so the address is a
 * digest of both, never the subject itself.
 */
export function ssoPlaceholderEmail(issuer: string, subject: string): string {
  const digest = createHash("sha256")
    .update(`${issuerKey(issuer)}\n${subject}`)
    .digest("hex");
  return `sso-${digest.slice(0, 32)}@oidc.invalid`;
}

/**
 * Whether the email claim is the person's: the provider says it verified it (`email_verified`
 * exactly true, as OpenID Connect defines it), or an admin chose to trust this provider's emails.
 * Absent is not verified: some providers never send it, and then anyone there may type any address.
 */
export function emailIsVerified(claims: Record<string, unknown>, issuer: string, trustedIssuer: string | null): boolean {
  return claims.email_verified === true || (trustedIssuer !== null && issuerKey(trustedIssuer) === issuerKey(issuer));
}

/**
 * The account an SSO identity (issuer + subject) is linked to. Accounts linked before the issuer
 * was kept match their subject alone (the caller binds them to this issuer).
 */
export async function findSsoUser(tx: Pick<Tx, "user">, issuer: string, subject: string) {
  return (
    (await tx.user.findFirst({ where: { oidcIssuer: issuerKey(issuer), oidcSubject: subject } })) ??
    (await tx.user.findFirst({ where: { oidcIssuer: null, oidcSubject: subject } }))
  );
}

/**
 * A person signed in at the OpenID Provider `issuer`: find them by issuer and subject, else link
 * the account holding their email (only a verified email, and only an account no other SSO
 * identity holds), else add them; keep their name; and, while a role mapping is configured, set
 * their role from its claim (audited when it changes). Returns the refusal code instead when the
 * account is disabled, the email cannot link, or the mapping lets them in with no role.
 * An unverified email is never an account's identity: a new account without one gets a
 * placeholder address, which a later verified email replaces.
 */
export async function signInWithOidc(
  issuer: string,
  subject: string,
  claims: Record<string, unknown>,
): Promise<{ refused: string } | null> {
  const settings = await getSettings();
  const parsedEmail = emailSchema.safeParse(claims.email);
  const email = parsedEmail.success && emailIsVerified(claims, issuer, settings.ssoTrustedEmailIssuer) ? parsedEmail.data : null;
  const unverifiedEmail = parsedEmail.success && !email ? parsedEmail.data : null;
  const name = claimText(claims.name, NAME_MAX);
  const mapping = settings.ssoRoleMapping;
  // The claim's values are kept at each sign-in: teams bind SSO groups to team roles (lib/server/auth/principal.ts).
  const groups = claimValues(claims, mapping?.claim ?? DEFAULT_SSO_ROLE_CLAIM)
    .filter((v) => v.length <= 200)
    .slice(0, 100);
  const inTeams = groups.length > 0 && (await db().teamMember.count({ where: { ssoGroup: { in: groups } } })) > 0;
  // No fleet role from the mapping but a team's SSO group: in, with their team roles only.
  const mappedRole: FleetRole | null = mapping ? (roleFromClaims(mapping, claims) ?? (inTeams ? "none" : null)) : null;

  return db().$transaction(async (tx) => {
    const refuse = async (target: { id: string; email: string } | null, reason: string, code: string) => {
      // Not (yet) anyone's own doing: the actor is the provider's identity, not an account.
      await recordAudit(
        tx,
        { type: "user", id: null, label: `oidc:${subject}` },
        "auth.signin_failed",
        target ? { type: "user", id: target.id } : null,
        { ...(target ? { email: target.email } : {}), method: "oidc", reason },
      );
      return { refused: code };
    };

    const bySubject = await findSsoUser(tx, issuer, subject);
    if (!bySubject && unverifiedEmail) {
      const holder = await tx.user.findUnique({ where: { email: unverifiedEmail } });
      // Someone at the provider claims this account's email without having proven it: not them.
      if (holder) return refuse(holder, "email_not_verified", SSO_REFUSALS.emailNotVerified);
    }
    const byEmail = !bySubject && email ? await tx.user.findUnique({ where: { email } }) : null;
    // The account is another person's at this provider (say, a recycled address). An identity at
    // a provider configured before is no longer usable: a verified email moves the account over.
    const linkedHere = byEmail?.oidcSubject && (byEmail.oidcIssuer === null || byEmail.oidcIssuer === issuerKey(issuer));
    if (byEmail && linkedHere) return refuse(byEmail, "email_linked_to_other_identity", SSO_REFUSALS.emailLinked);
    const existing = bySubject ?? byEmail;
    if (mapping && mappedRole === null) {
      // Out of every mapped and team-bound group now: sessions they still hold lose their teams at once.
      if (bySubject) await tx.user.update({ where: { id: bySubject.id }, data: { ssoGroups: JSON.stringify(groups) } });
      return refuse(existing, "no_mapped_role", SSO_REFUSALS.noRole);
    }
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
          email: email ?? ssoPlaceholderEmail(issuer, subject),
          name,
          role,
          oidcIssuer: issuerKey(issuer),
          oidcSubject: subject,
          ssoGroups: JSON.stringify(groups),
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

    let role = mappedRole ?? existing.role;
    const demotesLastAdmin =
      existing.role === "admin" && role !== "admin" && (await tx.user.count({ where: { role: "admin", disabledAt: null } })) <= 1;
    // Linking by email never brings the last admin's rights along against the mapping: whoever
    // proves the address gets the role the mapping gives, or (last admin) no way in at all.
    if (demotesLastAdmin && !bySubject) return refuse(existing, "last_admin_unmapped", SSO_REFUSALS.lastAdmin);
    // The mapping never demotes the last active admin it already signs in: that would leave
    // nobody to change it back.
    if (demotesLastAdmin) role = "admin";
    // An account made without a (verified) email got a placeholder: the real one replaces it.
    const repairEmail =
      email &&
      existing.email.endsWith("@oidc.invalid") &&
      !(await tx.user.findUnique({ where: { email }, select: { id: true } }));
    const user = await tx.user.update({
      where: { id: existing.id },
      data: {
        oidcIssuer: issuerKey(issuer),
        oidcSubject: subject,
        lastLoginAt: new Date(),
        role,
        ssoGroups: JSON.stringify(groups),
        ...(name ? { name } : {}),
        ...(repairEmail ? { email } : {}),
      },
    });
    if (!bySubject) await audit(user, "user.update", { email: user.email, via: "oidc", linked: "email" });
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
      ...(demotesLastAdmin ? { roleKept: "the mapping would demote the last active admin" } : {}),
    });
    return null;
  });
}
