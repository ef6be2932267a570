import "server-only";
import type { NextRequest } from "next/server";
import {
  replyProblem,
  type BodyOf,
  type PathParams,
  type QueryOf,
  type ReplyOf,
  type RouteContract,
} from "@/lib/contracts/route";
import type { Selector } from "@/lib/domain/selector";
import { authorize } from "@/lib/server/auth/authorize";
import { bearerFrom, principalFromApiKey, principalFromSession, type Principal } from "@/lib/server/auth/principal";
import { env } from "@/lib/env";
import { ApiError, errorResponse } from "./errors";
import { parseWith, readJson, refuseUnstorable } from "./read-body";

type RouteContext<P> = { params: Promise<P> };
export type AdminContext<C extends RouteContract> = {
  req: NextRequest;
  /** The caller; its actor records the role and team the call was allowed under. */
  principal: Principal;
  /** For `clusters` routes: the caller's team selectors to bound the answer to; null: the whole fleet. */
  scope: Selector[] | null;
  params: PathParams<C["path"]>;
  body: BodyOf<C>;
  query: QueryOf<C>;
};
/** A handler answers its contract's reply (sent as JSON with the declared status) or a Response of its own. */
type Handler<C extends RouteContract> = (ctx: AdminContext<C>) => Promise<ReplyOf<C> | Response>;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The console's own origin (scheme, host and port): the one sign-in builds its URLs from
 * (NEXTAUTH_URL, or what lib/env.ts derives without it), never a request's Host or X-Forwarded-Host.
 */
function consoleOrigin(): string {
  return new URL(env().authUrl).origin;
}

/**
 * Session-authenticated mutations must come from our own origin (docs/security.md, cross-site requests: csrf_rejected):
 * the full Origin equals the console's, and a browser's Sec-Fetch-Site, when sent, says
 * same-origin (a sibling subdomain is same-site, and still not us).
 */
export function assertSameOrigin(req: NextRequest) {
  const origin = req.headers.get("origin");
  let originValue: string | null = null;
  try {
    originValue = origin && origin !== "null" ? new URL(origin).origin : null;
  } catch {}
  const fetchSite = req.headers.get("sec-fetch-site");
  const expected = consoleOrigin();
  if (!originValue || originValue !== expected || (fetchSite !== null && fetchSite !== "same-origin")) {
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

/** The contract's body: read and parsed (a missing optional body reads as `{}`). */
async function readBody(req: NextRequest, contract: RouteContract, check?: (raw: unknown) => void): Promise<unknown> {
  if (!contract.body) return undefined;
  const present = Number(req.headers.get("content-length") ?? "0") > 0 || req.headers.has("transfer-encoding");
  const raw = contract.bodyOptional && !present ? {} : await readJson(req);
  check?.(raw);
  return parseWith(contract.body, raw);
}

/**
 * In development and tests every JSON answer is checked against its contract (a cheap proof that
 * the declared shape is what is sent); production skips it. The check reads the JSON form, as the
 * console will.
 */
function checkReply(contract: RouteContract, reply: unknown) {
  if (!env().checkApiResponses) return;
  const problem = replyProblem(contract, reply);
  if (problem) throw new Error(problem);
}

/**
 * Wraps an admin API handler declared by `contract` (lib/contracts): authenticate (session or API
 * key) -> same-origin check for session mutations -> session-only routes refuse keys -> roles and
 * scope (lib/server/auth/authorize.ts) -> parse query and body -> handler
 * -> JSON answer with the declared status. Errors become the JSON error body. `checkBody` sees the
 * raw body first, for a refusal with its own code (e.g. immutable_field).
 */
export function adminRoute<const C extends RouteContract>(
  contract: C,
  handler: Handler<C>,
  options: { checkBody?: (raw: unknown) => void } = {},
) {
  return async (req: NextRequest, context: RouteContext<PathParams<C["path"]>>): Promise<Response> => {
    try {
      const caller = await authenticate(req);
      if (caller.via === "session" && !SAFE_METHODS.has(req.method)) assertSameOrigin(req);
      if (contract.session && caller.via !== "session") {
        throw new ApiError(
          "session_required",
          "Only a person signed in to the console can do this, not an API key: sign in to the console as an admin.",
        );
      }
      // Ids in the path are looked up as they are: a NUL in one failed the query on PostgreSQL.
      const params = await context.params;
      refuseUnstorable(params, "path");
      const { principal, scope } = await authorize(contract, caller, params);
      const query = contract.query ? parseWith(contract.query, Object.fromEntries(req.nextUrl.searchParams), "query") : undefined;
      const body = await readBody(req, contract, options.checkBody);
      const reply = await handler({
        req,
        principal,
        scope,
        params,
        body: body as BodyOf<C>,
        query: query as QueryOf<C>,
      });
      if (reply instanceof Response) return reply;
      const status = contract.status ?? 200;
      if (status === 204) return new Response(null, { status });
      checkReply(contract, reply);
      return Response.json(reply, { status, headers: contract.noStore ? { "cache-control": "no-store" } : undefined });
    } catch (err) {
      return errorResponse(err);
    }
  };
}
