import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { env } from "@/lib/env";
import { emailSchema } from "@/lib/domain/email";
import { db } from "@/lib/server/db/client";
import { recordAudit } from "@/lib/server/audit/record-audit";
import { authSecret } from "./auth-secret";
import { dummyPasswordHash, verifyPassword } from "./password";

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

const credentialsSchema = z.object({ email: emailSchema, password: z.string().min(1).max(1024) });

async function authorizeCredentials(raw: unknown) {
  const parsed = credentialsSchema.safeParse(raw);
  if (!parsed.success) return null;
  const { email, password } = parsed.data;
  const user = await db().user.findUnique({ where: { email }, omit: { passwordHash: false } });
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !ok || user.disabledAt) return null;
  await db().user.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } });
  await recordAudit(
    db(),
    { type: "user", id: user.id, label: user.email },
    "auth.sign_in",
    { type: "user", id: user.id },
    { method: "password" },
  );
  return { id: user.id, email: user.email, name: user.name };
}

/** OIDC users are matched by subject, then by email; new ones become viewers. */
async function userForOidc(subject: string, email: string | null | undefined, name: string | null | undefined) {
  const existing =
    (await db().user.findUnique({ where: { oidcSubject: subject } })) ??
    (email ? await db().user.findUnique({ where: { email: email.toLowerCase() } }) : null);
  if (existing) {
    if (existing.disabledAt) return null;
    return db().user.update({ where: { id: existing.id }, data: { oidcSubject: subject, lastLoginAt: new Date() } });
  }
  const user = await db().user.create({
    data: {
      email: (email ?? `${subject}@oidc.invalid`).toLowerCase(),
      name,
      role: "viewer",
      oidcSubject: subject,
      lastLoginAt: new Date(),
    },
  });
  await recordAudit(
    db(),
    { type: "user", id: user.id, label: user.email },
    "user.create",
    { type: "user", id: user.id },
    { via: "oidc", role: "viewer" },
  );
  return user;
}

let cached: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  const oidc = env().oidc;
  cached = {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        authorize: authorizeCredentials,
      }),
      ...(oidc
        ? [
            {
              id: "oidc",
              name: oidc.name,
              type: "oauth" as const,
              wellKnown: `${oidc.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
              clientId: oidc.clientId,
              clientSecret: oidc.clientSecret,
              authorization: { params: { scope: "openid email profile" } },
              idToken: true,
              checks: ["pkce" as const, "state" as const],
              profile(p: { sub: string; email?: string; name?: string }) {
                return { id: p.sub, email: p.email ?? null, name: p.name ?? null };
              },
            },
          ]
        : []),
    ],
    callbacks: {
      async jwt({ token, user, account }) {
        if (account?.provider === "oidc" && account.providerAccountId) {
          const dbUser = await userForOidc(account.providerAccountId, user?.email, user?.name);
          if (!dbUser) throw new Error("This account is disabled.");
          token.uid = dbUser.id;
        } else if (user) {
          token.uid = user.id;
        }
        return token;
      },
      async session({ session, token }) {
        return { ...session, uid: token.uid };
      },
    },
  };
  return cached;
}
