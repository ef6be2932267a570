import "server-only";
import type http from "node:http";
import { ApiError, errorReply } from "@/lib/server/api/errors";
import { IDENTITY_HEADERS } from "./agent-identity";
import { PROTOCOL_HANDLERS } from "./protocol-handlers";

// docs/protocol.md, "Transport": the agent endpoints that carry secrets (a registration
// token, a CSR, cluster facts) answer only on the agent port (TLS); on the console port (plain
// HTTP behind the user's ingress) they answer 421. Only the public entries of the protocol table
// (the CA download) answer on both.

const ANY_PORT_PATHS = new Set(PROTOCOL_HANDLERS.filter((h) => h.auth === "public").map((h) => h.path.toLowerCase()));

function agentPortRequired(): ApiError {
  return new ApiError(
    "agent_port_required",
    "Agent endpoints answer only on the agent port (HTTPS, AGENT_PORT); point the agent's --server at it.",
  );
}

/**
 * The path as a router could come to understand it: percent-decoded, backslashes and repeated
 * slashes collapsed, dot segments resolved, lower case, without trailing slashes.
 */
function normalizedPath(url: string): string {
  let path = url.split(/[?#]/, 1)[0] ?? "";
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape: judge the raw text.
  }
  path = `/${path}`.replace(/[\\/]+/g, "/");
  try {
    path = new URL(path, "http://host").pathname;
  } catch {
    // Keep the collapsed form.
  }
  return path.toLowerCase().replace(/\/+$/, "") || "/";
}

/**
 * True for a request target the console port refuses with 421: everything under /api/agent/ but
 * the CA download, however it is spelt (trailing slash, query string, case, escapes), for every
 * method. The protocol's dispatcher checks the agent-port mark as well (requireAgentPort); this
 * catches the spellings Next would otherwise redirect or answer 404/405 for.
 */
export function isAgentOnlyPath(url: string): boolean {
  const path = normalizedPath(url);
  return (path === "/api/agent" || path.startsWith("/api/agent/")) && !ANY_PORT_PATHS.has(path);
}

/** Throws 421 agent_port_required unless the custom server marked the request as arrived on the agent port. */
export function requireAgentPort(headers: Pick<Headers, "get">): void {
  if (headers.get(IDENTITY_HEADERS.agentPort) !== "1") throw agentPortRequired();
}

/** The console port's answer to an agent-only path, written before Next sees the request. */
export function refuseOnConsolePort(res: http.ServerResponse): void {
  const r = errorReply(agentPortRequired());
  const json = JSON.stringify(r.body);
  res.writeHead(r.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    "x-content-type-options": "nosniff",
    // The body of a refused request is not read: close rather than drain it on a kept-alive connection.
    connection: "close",
  });
  res.end(json);
}
