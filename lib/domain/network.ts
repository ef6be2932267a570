import { isIPv4, isIPv6 } from "node:net";

/**
 * True when a socket peer address is the machine itself: 127.0.0.0/8, ::1, or an IPv4-mapped
 * 127.x address (::ffff:127.0.0.1, in either notation). Anything unparsable is not loopback.
 */
export function isLoopbackAddress(address: string | null | undefined): boolean {
  if (!address) return false;
  let a = address.trim().toLowerCase();
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1);
  if (isIPv4(a)) return a.startsWith("127.");
  if (!isIPv6(a) || a.includes("%")) return false;
  // The URL parser writes IPv6 in its one canonical form: ::1, and mapped IPv4 as ::ffff:7f00:1.
  const canonical = new URL(`http://[${a}]`).hostname.slice(1, -1);
  if (canonical === "::1") return true;
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(canonical);
  return !!mapped && parseInt(mapped[1]!, 16) >> 8 === 0x7f;
}
