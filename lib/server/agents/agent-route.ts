import "server-only";
import type { NextRequest } from "next/server";
import { errorResponse } from "@/lib/server/api/errors";
import { agentIdentity, IDENTITY_HEADERS, type AgentIdentity } from "./agent-identity";
import { requireAgentPort } from "./agent-port";

export type AgentContext = { req: NextRequest; sourceAddress: string | null };

function route(handler: (ctx: AgentContext) => Promise<Response>, agentPortOnly: boolean) {
  return async (req: NextRequest): Promise<Response> => {
    try {
      if (agentPortOnly) requireAgentPort(req.headers);
      return await handler({ req, sourceAddress: req.headers.get(IDENTITY_HEADERS.remoteAddress) });
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/** For agent endpoints without a client certificate (registration): agent port only, 421 elsewhere. */
export function agentRoute(handler: (ctx: AgentContext) => Promise<Response>) {
  return route(handler, true);
}

/** For the public agent endpoint (the CA download), which answers on both ports. */
export function publicAgentRoute(handler: (ctx: AgentContext) => Promise<Response>) {
  return route(handler, false);
}

/**
 * For agent endpoints that need mutual TLS: the handler gets the verified cluster identity.
 * `acceptExpired` only for rotate (its renewal grace); every other endpoint refuses an expired one.
 */
export function authenticatedAgentRoute(
  handler: (ctx: AgentContext & { agent: AgentIdentity }) => Promise<Response>,
  options: { acceptExpired?: boolean } = {},
) {
  return agentRoute(async (ctx) => handler({ ...ctx, agent: await agentIdentity(ctx.req.headers, options) }));
}
