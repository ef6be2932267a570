import "server-only";
import { PASSWORD_LINK_HOURS } from "@/lib/domain/users";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/server/api/errors";
import { hashPassword } from "@/lib/server/auth/password";
import { randomSecret, sha256Hex } from "@/lib/server/auth/secrets";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db, type Tx } from "@/lib/server/db/client";

// A set-password link lets an admin add a person without ever knowing their password. The link's
// secret travels in the URL's fragment (#...), which browsers never send to a server or put in a
// Referer, so it stays out of access logs and proxies; only its SHA-256 is stored. A link works
// once, for PASSWORD_LINK_HOURS, and a newer link for the same person replaces it.

export type PasswordLinkView = { url: string; expiresAt: string };

const INVALID =
  "This set-password link no longer works: it was used, replaced by a newer one, or expired. Ask an admin for a new link.";

/** The page a link opens; the secret follows the `#`. */
export function passwordLinkUrl(token: string): string {
  return new URL(`/set-password#${token}`, env().authUrl).toString();
}

/** Mints a link for `user` (replacing any earlier one) inside the caller's transaction; audited. */
export async function mintPasswordLink(
  tx: Tx,
  actor: Actor,
  user: { id: string; email: string; oidcSubject: string | null; disabledAt: Date | null },
  now = new Date(),
): Promise<PasswordLinkView> {
  if (user.oidcSubject) {
    throw new ApiError(
      "password_not_needed",
      `${user.email} signs in through single sign-on and needs no password; their provider manages how they sign in.`,
    );
  }
  if (user.disabledAt) throw new ApiError("conflict", `${user.email} is disabled; enable them before sending a link.`);
  const token = randomSecret(32);
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_HOURS * 3_600_000);
  await tx.passwordLink.updateMany({ where: { userId: user.id, usedAt: null }, data: { usedAt: now } });
  await tx.passwordLink.create({
    data: { userId: user.id, tokenHash: sha256Hex(token), expiresAt, createdById: actor.type === "user" ? actor.id : null },
  });
  await recordAudit(tx, actor, "user.passwordLink", { type: "user", id: user.id }, { email: user.email, expiresAt });
  return { url: passwordLinkUrl(token), expiresAt: expiresAt.toISOString() };
}

/** Mints a new link for an existing user (an admin's "Set-password link" action). */
export async function createPasswordLink(actor: Actor, userId: string): Promise<PasswordLinkView> {
  return db().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId } });
    if (!user) throw new ApiError("not_found", "No such user.");
    return mintPasswordLink(tx, actor, user);
  });
}

async function liveLink(tx: Tx, token: string, now: Date) {
  const link = await tx.passwordLink.findUnique({ where: { tokenHash: sha256Hex(token) }, include: { user: true } });
  if (!link || link.usedAt || link.expiresAt <= now || link.user.disabledAt || link.user.oidcSubject) {
    throw new ApiError("password_link_invalid", INVALID);
  }
  return link;
}

/** Whom a link is for, so the page can name them before they type a password. */
export async function checkPasswordLink(token: string, now = new Date()): Promise<{ email: string; expiresAt: string }> {
  const link = await db().$transaction((tx) => liveLink(tx, token, now));
  return { email: link.user.email, expiresAt: link.expiresAt.toISOString() };
}

/** Sets the person's password from a live link, once; ends their sessions; audited as them. */
export async function redeemPasswordLink(token: string, password: string, now = new Date()): Promise<{ email: string }> {
  const passwordHash = await hashPassword(password);
  return db().$transaction(async (tx) => {
    const link = await liveLink(tx, token, now);
    // Conditional on still being unused: two tabs submitting at once set the password once.
    const claimed = await tx.passwordLink.updateMany({ where: { id: link.id, usedAt: null }, data: { usedAt: now } });
    if (claimed.count !== 1) throw new ApiError("password_link_invalid", INVALID);
    await tx.user.update({ where: { id: link.userId }, data: { passwordHash, sessionVersion: { increment: 1 } } });
    await recordAudit(
      tx,
      { type: "user", id: link.userId, label: link.user.email },
      "user.passwordSet",
      { type: "user", id: link.userId },
      { email: link.user.email, via: "set-password link" },
    );
    return { email: link.user.email };
  });
}
