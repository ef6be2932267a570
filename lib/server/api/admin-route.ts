import "server-only";
import type { NextRequest } from "next/server";
import { hasRole, type Role } from "@/lib/domain/roles";
import { bearerFrom, principalFromApiKey, principalFromSession, type Principal } from "@/lib/server/auth/principal";
import { env } from "@/lib/env";
import { IDENTITY_HEADERS } from "@/lib/server/agents/agent-identity";
import { configuredProxies, isTrustedProxy } from "@/lib/server/net/trusted-proxies";
import { ApiError, errorResponse } from "./errors";

type RouteContext<P> = { params: Promise<P> };
export type AdminContext<P> = { req: NextRequest; principal: Principal; params: P };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function firstValue(header: string | null): string | null {
  return header?.split(",")[0]?.trim() || null;
}

/**
 * The console's own origin (scheme, host and port): NEXTAUTH_URL's when it is set, else the
 * request's. X-Forwarded-Host counts only from a trusted proxy (TRUSTED_PROXY_CIDRS); so does
 * X-Forwarded-Proto, which server.ts drops from anyone else before Next fills it from the socket.
 */
function consoleOrigin(req: NextRequest): string | null {
  const configured = env().NEXTAUTH_URL;
  if (configured) return new URL(configured).origin;
  const peer = req.headers.get(IDENTITY_HEADERS.remoteAddress) ?? "";
  const forwardedHost = isTrustedProxy(configuredProxies(), peer) ? firstValue(req.headers.get("x-forwarded-host")) : null;
  const host = forwardedHost ?? req.headers.get("host");
  const proto = firstValue(req.headers.get("x-forwarded-proto")) ?? "http";
  try {
    return host ? new URL(`${proto}://${host}`).origin : null;
  } catch {
    return null;
  }
}

/**
 * Session-authenticated mutations must come from our own origin (PROTOCOL.md: csrf_rejected):
 * the full Origin equals the console's, and a browser's Sec-Fetch-Site, when sent, says
 * same-origin (a sibling subdomain is same-site, and still not us).
 */
function assertSameOrigin(req: NextRequest) {
  const origin = req.headers.get("origin");
  let originValue: string | null = null;
  try {
    originValue = origin && origin !== "null" ? new URL(origin).origin : null;
  } catch {}
  const fetchSite = req.headers.get("sec-fetch-site");
  const expected = consoleOrigin(req);
  if (!originValue || !expected || originValue !== expected || (fetchSite !== null && fetchSite !== "same-origin")) {
    throw new ApiError(
      "csrf_rejected",
      "Changes must come from the console's own origin (missing or foreign Origin header, or a cross-origin fetch).",
    );
  }
}

export async function authenticate(req: NextRequest): Promise<Principal> {
  const bearer = bearerFrom(req.headers);
  if (bearer !== null) {
    const principal = bearer ? await principalFromApiKey(bearer) : null;
    if (!principal) throw new ApiError("unauthenticated", "The API key is invalid, expired or revoked.");
    return principal;
  }
  const principal = await principalFromSession(req.cookies);
  if (!principal) throw new ApiError("unauthenticated", "Sign in, or send an API key as a Bearer token.");
  return principal;
}

/**
 * Wraps an admin API handler: authenticate (session or API key) -> same-origin check for
 * session mutations -> role check -> handler. Errors become the JSON error body.
 */
export function adminRoute<P = Record<string, never>>(role: Role, handler: (ctx: AdminContext<P>) => Promise<Response>) {
  return async (req: NextRequest, context: RouteContext<P>): Promise<Response> => {
    try {
      const principal = await authenticate(req);
      if (principal.via === "session" && !SAFE_METHODS.has(req.method)) assertSameOrigin(req);
      if (!hasRole(principal.role, role)) {
        throw new ApiError("forbidden", `This needs the ${role} role or higher; you are ${principal.role}.`);
      }
      return await handler({ req, principal, params: await context.params });
    } catch (err) {
      return errorResponse(err);
    }
  };
}
