import { BlockList, isIP, isIPv4 } from "node:net";

// The client's address behind proxies. X-Forwarded-For is a list anyone can start: each proxy
// appends the address it received the request from, so only the entries added by proxies we trust
// say anything, and they are at the right end. The rule: start from the socket's peer; while the
// address in hand is a trusted proxy, step one entry to the left. The first address that is not a
// trusted proxy is the client. With no trusted proxies (the default), that is the peer itself.

export type ProxyList = BlockList | null;

/** Whether `value` is an IPv4 or IPv6 address, optionally with a prefix length (a CIDR). */
export function isCidr(value: string): boolean {
  const [address = "", bits, extra] = value.split("/");
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return /^\d+$/.test(bits) && n <= (family === 4 ? 32 : 128);
}

/** The trusted proxies as a lookup; null when there are none. Entries are checked by isCidr first (lib/env.ts). */
export function trustedProxies(cidrs: readonly string[]): ProxyList {
  if (!cidrs.length) return null;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [addr = "", bits] = cidr.split("/");
    const type = isIPv4(addr) ? "ipv4" : "ipv6";
    list.addSubnet(addr, Number(bits ?? (type === "ipv4" ? 32 : 128)), type);
  }
  return list;
}

/**
 * One spelling per address, so one client is one key (throttling, rate limits): "::ffff:10.0.0.1"
 * is "10.0.0.1", and IPv6 is written in its canonical form ("2001:DB8:0::7" is "2001:db8::7").
 */
export function normalizeAddress(address: string): string {
  const a = address.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  if (isIP(a) !== 6 || a.includes("%")) return a;
  return new URL(`http://[${a}]`).hostname.slice(1, -1);
}

export function isTrustedProxy(list: ProxyList, address: string): boolean {
  const a = normalizeAddress(address);
  const family = isIP(a);
  return !!list && family !== 0 && list.check(a, family === 4 ? "ipv4" : "ipv6");
}

/**
 * One X-Forwarded-For entry as an address, or null: some proxies write a port ("203.0.113.5:4711",
 * "[2001:db8::7]:443") or brackets; "unknown", names and anything else are not addresses.
 */
export function forwardedHop(entry: string): string | null {
  let hop = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) hop = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(hop)) hop = hop.slice(0, hop.lastIndexOf(":"));
  hop = normalizeAddress(hop);
  return isIP(hop) === 0 ? null : hop;
}

/**
 * The client's address: the peer, or, when the peer is a trusted proxy, the nearest address in
 * X-Forwarded-For that is not itself a trusted proxy (read right to left: the left part is
 * whatever the client wrote). An entry that is not an address stops the walk at the proxy that
 * passed it on: nothing to its left can be told apart from what the client wrote.
 */
export function clientAddress(peer: string, forwardedFor: string | null, list: ProxyList): string {
  let address = normalizeAddress(peer);
  if (!forwardedFor || !isTrustedProxy(list, address)) return address;
  for (const entry of forwardedFor.split(",").reverse()) {
    const hop = forwardedHop(entry);
    if (hop === null) break;
    address = hop;
    if (!isTrustedProxy(list, hop)) break;
  }
  return address;
}
