import "server-only";
import type http from "node:http";
import { BlockList, isIP, isIPv4 } from "node:net";
import { env } from "@/lib/env";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";

// TRUSTED_PROXY_CIDRS names the proxies whose X-Forwarded-For/-Host/-Proto are believed, on both
// ports: one list, one check, so the two ports can never disagree about the client's address. A
// forwarded client certificate is an identity and has its own, stricter trust (agent-server.ts).

export type ProxyList = BlockList | null;

export function trustedProxies(cidrs: string[]): ProxyList {
  if (!cidrs.length) return null;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [addr, bits] = cidr.split("/");
    const type = isIPv4(addr!) ? "ipv4" : "ipv6";
    list.addSubnet(addr!, Number(bits ?? (type === "ipv4" ? 32 : 128)), type);
  }
  return list;
}

/** "::ffff:10.0.0.1" and "10.0.0.1" are the same peer. */
export function normalizeAddress(address: string): string {
  return address.trim().replace(/^::ffff:/i, "");
}

export function isTrustedProxy(list: ProxyList, address: string): boolean {
  const a = normalizeAddress(address);
  const family = isIP(a);
  return !!list && family !== 0 && list.check(a, family === 4 ? "ipv4" : "ipv6");
}

// What a client can claim through a proxy. Next.js fills the X-Forwarded-* ones from the socket
// and Host when they are absent, so once an untrusted peer's copies are gone, every later reader
// (next-auth's origin, the same-origin check) sees the real values.
const FORWARDED_HEADERS = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "forwarded"];

/** Drops forwarded headers unless the peer is a trusted proxy (both ports, before Next sees the request). */
export function stripUntrustedForwarding(req: http.IncomingMessage, list: ProxyList, peer: string): void {
  if (isTrustedProxy(list, peer)) return;
  for (const name of FORWARDED_HEADERS) delete req.headers[name];
}

/**
 * The client's address: the peer, or, when the peer is a trusted proxy, the nearest address in
 * X-Forwarded-For that is not itself a trusted proxy (read right to left: the left part is
 * whatever the client wrote).
 */
export function clientAddress(peer: string, forwardedFor: string | null, list: ProxyList): string {
  let address = normalizeAddress(peer);
  if (!forwardedFor || !isTrustedProxy(list, address)) return address;
  const hops = forwardedFor.split(",").map(normalizeAddress).reverse();
  for (const hop of hops) {
    if (isIP(hop) === 0) break;
    address = hop;
    if (!isTrustedProxy(list, hop)) break;
  }
  return address;
}

let configured: { cidrs: string[]; list: ProxyList } | undefined;

/** The configured list (TRUSTED_PROXY_CIDRS), built once. */
export function configuredProxies(): ProxyList {
  const cidrs = env().TRUSTED_PROXY_CIDRS;
  if (configured?.cidrs !== cidrs) configured = { cidrs, list: trustedProxies(cidrs) };
  return configured.list;
}

/** The client address of a request the custom server handed over (it notes the peer in a header). */
export function requestClientAddress(headers: { get(name: string): string | null }): string {
  const peer = headers.get(IDENTITY_HEADERS.remoteAddress) ?? "unknown";
  return clientAddress(peer, headers.get("x-forwarded-for"), configuredProxies());
}
