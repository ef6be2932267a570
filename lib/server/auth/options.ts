import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import type { OAuthConfig } from "next-auth/providers/oauth";
import type { TokenSet } from "openid-client";
import { env, type Env } from "@/lib/env";
import { emailSchema } from "@/lib/domain/email";
import { db } from "@/lib/server/db/client";
import { recordAudit } from "@/lib/server/audit/record-audit";
import { requestClientAddress } from "@/lib/server/net/trusted-proxies";
import { SSO_REFUSALS } from "@/lib/domain/sign-in-errors";
import { needsUserinfo } from "@/lib/domain/sso-roles";
import { log } from "@/lib/server/log";
import { getSettings } from "@/lib/server/settings/settings";
import { authSecret } from "./auth-secret";
import { clearAccountFailures, recordSignInFailure } from "./login-throttle";
import { findSsoUser, signInWithOidc } from "./oidc-sign-in";
import { dummyPasswordHash, verifyPassword } from "./password";
import { SESSION_MAX_AGE_SECONDS, startSession } from "./sessions";

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
  await clearAccountFailures(email, address);
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

type OidcClaims = Record<string, unknown> & { sub: string };

/** The OpenID Provider from OIDC_* (next-auth's callback id, and so the redirect URI's: `oidc`). */
function oidcProvider(oidc: NonNullable<Env["oidc"]>): OAuthConfig<OidcClaims> {
  return {
    id: "oidc",
    name: oidc.name,
    type: "oauth",
    wellKnown: `${oidc.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    authorization: { params: { scope: oidc.scopes } },
    idToken: true,
    // nonce: the ID token must answer this browser's own authorization request, so one obtained
    // elsewhere (another client's, an old one) cannot be injected into our callback.
    checks: ["pkce", "state", "nonce"],
    // Spec-conformant providers put email, name and groups in userinfo, not in the ID token, unless
    // a `claims` request asks: read userinfo when the ID token lacks them.
    userinfo: {
      async request({ tokens, client }) {
        // At run time next-auth passes openid-client's TokenSet (its declared type is the plain fields).
        const tokenSet = tokens as TokenSet;
        const idClaims = tokenSet.claims() as OidcClaims;
        const roleClaim = (await getSettings()).ssoRoleMapping?.claim ?? null;
        if (!needsUserinfo(idClaims, roleClaim)) return idClaims;
        // openid-client refuses userinfo whose `sub` is not the ID token's.
        return { ...idClaims, ...(await client.userinfo(tokenSet)), sub: idClaims.sub };
      },
    },
    profile(p) {
      return {
        id: p.sub,
        email: typeof p.email === "string" ? p.email : null,
        name: typeof p.name === "string" ? p.name : null,
      };
    },
  };
}

let cached: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  const oidc = env().oidc;
  cached = {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    // An https public URL makes the cookies Secure (and __Secure-/__Host- prefixed).
    useSecureCookies: env().authUrl.startsWith("https://"),
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        authorize: authorizeCredentials,
      }),
      ...(oidc ? [oidcProvider(oidc)] : []),
    ],
    callbacks: {
      // A single sign-on is accepted or refused here; a refusal's code reaches the login page as
      // `?error=` (next-auth's error route forwards to pages.error), never as its own error page.
      async signIn({ account, profile }) {
        if (account?.provider !== "oidc" || !oidc) return true;
        let outcome: { refused: string } | null;
        try {
          outcome = await signInWithOidc(oidc.issuer, account.providerAccountId, (profile ?? {}) as Record<string, unknown>);
        } catch (err) {
          // next-auth would put this error's text in the URL: the log gets it, the URL a code.
          log.error("single sign-on failed", { error: err });
          throw new Error(SSO_REFUSALS.failed);
        }
        if (outcome) throw new Error(outcome.refused);
        return true;
      },
      // The session starts here, once, at sign-in (its row and its claims sid, sv, authAt);
      // principal.ts checks them on every request.
      async jwt({ token, user, account }) {
        if (account?.provider === "oidc" && oidc) {
          const dbUser = await findSsoUser(db(), oidc.issuer, account.providerAccountId);
          if (!dbUser || dbUser.disabledAt) throw new Error("The single sign-on user is missing or disabled.");
          // Kept for RP-initiated logout (auth-route.ts); the session callback does not expose it.
          return { ...token, ...(await startSession(dbUser)), idToken: account.id_token };
        }
        if (user) {
          const sessionVersion = (user as { sessionVersion?: unknown }).sessionVersion;
          return { ...token, ...(await startSession({ id: user.id, sessionVersion: Number(sessionVersion ?? 0) })) };
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
