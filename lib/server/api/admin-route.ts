import "server-only";
import type { NextRequest } from "next/server";
import { hasRole, type Role } from "@/lib/domain/roles";
import { bearerFrom, principalFromApiKey, principalFromSession, type Principal } from "@/lib/server/auth/principal";
import { ApiError, errorResponse } from "./errors";

type RouteContext<P> = { params: Promise<P> };
export type AdminContext<P> = { req: NextRequest; principal: Principal; params: P };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Session-authenticated mutations must come from our own origin (PROTOCOL.md: csrf_rejected). */
function assertSameOrigin(req: NextRequest) {
  const origin = req.headers.get("origin");
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  let originHost: string | null = null;
  try {
    originHost = origin && origin !== "null" ? new URL(origin).host : null;
  } catch {}
  if (!originHost || originHost !== host || req.headers.get("sec-fetch-site") === "cross-site") {
    throw new ApiError("csrf_rejected", "Changes must come from the console's own origin (missing or foreign Origin header).");
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
