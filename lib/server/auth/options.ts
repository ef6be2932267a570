import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { env } from "@/lib/env";
import { emailSchema } from "@/lib/domain/email";
import { db } from "@/lib/server/db/client";
import { recordAudit } from "@/lib/server/audit/record-audit";
import { requestClientAddress } from "@/lib/server/net/trusted-proxies";
import { authSecret } from "./auth-secret";
import { clearAccountFailures, recordSignInFailure } from "./login-throttle";
import { dummyPasswordHash, verifyPassword } from "./password";
import { newSessionClaims, SESSION_MAX_AGE_SECONDS } from "./sessions";

const credentialsSchema = z.object({ email: emailSchema, password: z.string().min(1).max(1024) });

type HeaderRecord = Record<string, string | string[] | undefined> | undefined;

function headerReader(headers: HeaderRecord) {
  return {
    get(name: string) {
      const v = headers?.[name];
      return typeof v === "string" ? v : null;
    },
  };
}

/** The email a sign-in attempt names, normalised as accounts are stored; null when unusable. */
export function attemptedEmail(raw: unknown): string | null {
  const value = typeof raw === "object" && raw !== null ? (raw as { email?: unknown }).email : undefined;
  const parsed = emailSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

// Locks are enforced before next-auth runs (lib/server/auth/auth-route.ts answers 429); this
// counts the outcome of each password check.
async function authorizeCredentials(raw: unknown, req: { headers?: HeaderRecord }) {
  const address = requestClientAddress(headerReader(req.headers));
  const parsed = credentialsSchema.safeParse(raw);
  if (!parsed.success) {
    await recordSignInFailure({ email: attemptedEmail(raw), address, userId: null, reason: "invalid_input" });
    return null;
  }
  const { email, password } = parsed.data;
  const user = await db().user.findUnique({ where: { email }, omit: { passwordHash: false } });
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !ok || user.disabledAt) {
    const reason = !user ? "unknown_account" : !ok ? "wrong_password" : "disabled";
    await recordSignInFailure({ email, address, userId: user?.id ?? null, reason });
    return null;
  }
  await clearAccountFailures(email);
  await db().user.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } });
  await recordAudit(
    db(),
    { type: "user", id: user.id, label: user.email },
    "auth.sign_in",
    { type: "user", id: user.id },
    { method: "password", address },
  );
  return { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion };
}

/**
 * Where next-auth may send the browser after signing in or out: a path on our own origin, or a
 * URL of that origin; anything else (a foreign host, a look-alike such as
 * `http://127.0.0.1:3910.evil.example/`, garbage that is no URL at all) means the console's root.
 * next-auth's default threw `Invalid URL` on the garbage, answering 500.
 */
export function safeRedirect(url: string, baseUrl: string): string {
  if (url.startsWith("/") && !url.startsWith("//") && !url.startsWith("/\\")) return `${baseUrl}${url}`;
  try {
    if (new URL(url).origin === new URL(baseUrl).origin) return url;
  } catch {}
  return baseUrl;
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
  const publicUrl = env().NEXTAUTH_URL;
  cached = {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    // An https public URL makes the cookies Secure (and __Secure-/__Host- prefixed). Unset, next-auth
    // decides per request from the scheme a trusted proxy forwarded (server.ts drops anyone else's).
    ...(publicUrl ? { useSecureCookies: publicUrl.startsWith("https://") } : {}),
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
      // Session claims (sid, sv, authAt) are set once, at sign-in; principal.ts checks them on
      // every request.
      async jwt({ token, user, account }) {
        if (account?.provider === "oidc" && account.providerAccountId) {
          const dbUser = await userForOidc(account.providerAccountId, user?.email, user?.name);
          if (!dbUser) throw new Error("This account is disabled.");
          return { ...token, ...newSessionClaims(dbUser) };
        }
        if (user) {
          const sessionVersion = (user as { sessionVersion?: unknown }).sessionVersion;
          return { ...token, ...newSessionClaims({ id: user.id, sessionVersion: Number(sessionVersion ?? 0) }) };
        }
        return token;
      },
      async redirect({ url, baseUrl }) {
        return safeRedirect(url, baseUrl);
      },
      async session({ session, token }) {
        return { ...session, uid: token.uid };
      },
    },
  };
  return cached;
}
