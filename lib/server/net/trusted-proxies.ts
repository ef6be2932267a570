import "server-only";
import type http from "node:http";
import { env } from "@/lib/env";
import { clientAddress, isTrustedProxy, trustedProxies, type ProxyList } from "@/lib/domain/client-address";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";

// TRUSTED_PROXY_CIDRS names the proxies whose X-Forwarded-For/-Host/-Proto are believed, on both
// ports: one list, one check, so the two ports can never disagree about the client's address. A
// forwarded client certificate is an identity and has its own, stricter trust (agent-server.ts).
// The rule itself is pure (lib/domain/client-address.ts); requestClientAddress is the one place
// the app asks for a request's client address (sign-in throttling, audit, registration's rate
// limit and attempts log).

export { clientAddress, isTrustedProxy, trustedProxies, type ProxyList };

// What a client can claim through a proxy. Next.js fills the X-Forwarded-* ones from the socket
// and Host when they are absent, so once an untrusted peer's copies are gone, every later reader
// (next-auth's origin, the same-origin check) sees the real values.
const FORWARDED_HEADERS = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "forwarded"];

/** Drops forwarded headers unless the peer is a trusted proxy (both ports, before Next sees the request). */
export function stripUntrustedForwarding(req: http.IncomingMessage, list: ProxyList, peer: string): void {
  if (!isTrustedProxy(list, peer)) dropForwardingHeaders(req);
}

/** Drops what a peer that is no trusted proxy claims through forwarded headers. */
export function dropForwardingHeaders(req: http.IncomingMessage): void {
  for (const name of FORWARDED_HEADERS) delete req.headers[name];
}

let configured: { cidrs: string[]; list: ProxyList } | undefined;

/** The configured list (TRUSTED_PROXY_CIDRS), built once. */
export function configuredProxies(): ProxyList {
  const cidrs = env().TRUSTED_PROXY_CIDRS;
  if (configured?.cidrs !== cidrs) configured = { cidrs, list: trustedProxies(cidrs) };
  return configured.list;
}

/** The client address of a request the custom server handed over (it notes the socket's peer in a header). */
export function requestClientAddress(headers: { get(name: string): string | null }): string {
  const peer = headers.get(IDENTITY_HEADERS.remoteAddress) ?? "unknown";
  return clientAddress(peer, headers.get("x-forwarded-for"), configuredProxies());
}
