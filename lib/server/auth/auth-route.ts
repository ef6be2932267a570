import "server-only";
import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { tooManyAttemptsMessage } from "@/lib/domain/login-throttle";
import { withKnownErrorCode } from "@/lib/domain/sign-in-errors";
import { ApiError, errorResponse } from "@/lib/server/api/errors";
import { MAX_BODY_BYTES } from "@/lib/server/api/read-body";
import { recordAudit } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { requestClientAddress } from "@/lib/server/net/trusted-proxies";
import { accountDelay, activeLock, beginAttempt } from "./login-throttle";
import { attemptedEmail, authOptions } from "./options";
import { sessionCookie } from "./principal";
import { providerSignOutUrl } from "./oidc-logout";
import { decodeSession, endSession, sessionIdToken } from "./sessions";

type Ctx = { params: Promise<{ nextauth: string[] }> };
type Run = () => Promise<Response>;

/**
 * next-auth's route handler with what next-auth v4 cannot do itself: sign-in throttling that
 * answers 429 with Retry-After (a locked account-and-address pair or address is refused before any
 * password is checked, even the right one; an account failing from anywhere is only slowed), and
 * sign-out that ends the session everywhere, not only in this browser (the session id goes on the
 * deny-list).
 *
 * Its redirects carry only known error codes.
 */
export async function authRoute(req: NextRequest, ctx: Ctx): Promise<Response> {
  try {
    const params = await ctx.params;
    const run: Run = () => NextAuth(req, { params }, authOptions());
    const action = params.nextauth.join("/");
    if (req.method === "POST" && action === "callback/credentials")
      return await withKnownErrorCodes(await credentialsSignIn(req, run));
    if (req.method === "POST" && action === "signout") return await signOut(req, run);
    return await withKnownErrorCodes(await run());
  } catch (err) {
    return errorResponse(err);
  }
}

function tooManyAttempts(seconds: number): ApiError {
  return new ApiError(
    "rate_limited",
    tooManyAttemptsMessage(seconds),
    { retryAfterSeconds: seconds },
    { "retry-after": String(seconds) },
  );
}

/** The sign-in form's fields, read from a copy of the body (next-auth reads the original). */
async function signInFields(req: NextRequest): Promise<unknown> {
  if (Number(req.headers.get("content-length") ?? "0") > MAX_BODY_BYTES) {
    throw new ApiError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`);
  }
  const text = await req.clone().text();
  if (text.length > MAX_BODY_BYTES) {
    throw new ApiError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`);
  }
  if ((req.headers.get("content-type") ?? "").includes("application/json")) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

async function credentialsSignIn(req: NextRequest, run: Run): Promise<Response> {
  const attempt = { email: attemptedEmail(await signInFields(req)), address: requestClientAddress(req.headers) };
  const lock = await activeLock(attempt);
  if (lock) throw tooManyAttempts(lock.retryAfterSeconds);
  const release = beginAttempt(attempt);
  if (!release) throw tooManyAttempts(1);
  try {
    const delay = await accountDelay(attempt.email);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return await run();
  } finally {
    release();
  }
}

/**
 * next-auth's answer with its redirect (a Location, or `{ url }` for the console's JSON calls)
 * carrying a known error code: next-auth puts the text of whatever a callback threw in `?error=`.
 */
async function withKnownErrorCodes(res: Response): Promise<Response> {
  const location = res.headers.get("location");
  if (location !== null) {
    const fixed = withKnownErrorCode(location);
    if (fixed === location) return res;
    const headers = new Headers(res.headers);
    headers.set("location", fixed);
    return new Response(res.body, { status: res.status, headers });
  }
  if (!(res.headers.get("content-type") ?? "").includes("application/json")) return res;
  const body = (await res
    .clone()
    .json()
    .catch(() => null)) as { url?: unknown } | null;
  if (typeof body?.url !== "string" || withKnownErrorCode(body.url) === body.url) return res;
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify({ ...body, url: withKnownErrorCode(body.url) }), { status: res.status, headers });
}

/** next-auth clears the cookie only after checking its CSRF token: end the session only then. */
function clearsSessionCookie(res: Response): boolean {
  return res.headers.getSetCookie().some((c) => /^(__Secure-)?next-auth\.session-token(\.\d+)?=;/.test(c));
}

async function signOut(req: NextRequest, run: Run): Promise<Response> {
  const raw = sessionCookie(req.cookies);
  const res = await run();
  const claims = raw && clearsSessionCookie(res) ? await decodeSession(raw) : null;
  const idToken = raw && claims ? await sessionIdToken(raw) : null;
  if (claims) {
    await endSession(claims);
    const user = await db().user.findUnique({ where: { id: claims.uid }, select: { email: true } });
    await recordAudit(
      db(),
      { type: "user", id: claims.uid, label: user?.email ?? claims.uid },
      "auth.sign_out",
      { type: "user", id: claims.uid },
      { address: requestClientAddress(req.headers) },
    );
  }
  return idToken ? await throughProviderSignOut(res, idToken) : res;
}

/**
 * A single sign-on session also ends at the provider (RP-initiated logout): the browser is sent to
 * its end-session endpoint, which returns it to where next-auth would have sent it (our /login).
 * next-auth answers the console's sign-out with JSON `{ url }` and a form post with a redirect.
 */
async function throughProviderSignOut(res: Response, idToken: string): Promise<Response> {
  const json = (res.headers.get("content-type") ?? "").includes("application/json");
  const returnTo = json ? ((await res.clone().json()) as { url?: unknown }).url : res.headers.get("location");
  if (typeof returnTo !== "string") return res;
  const url = await providerSignOutUrl(idToken, returnTo);
  if (!url) return res;
  const headers = new Headers(res.headers);
  if (!json) {
    headers.set("location", url);
    return new Response(null, { status: res.status, headers });
  }
  headers.delete("content-length");
  return new Response(JSON.stringify({ url }), { status: res.status, headers });
}
