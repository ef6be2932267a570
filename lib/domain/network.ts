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

// Where a webhook may be sent (server-side request forgery): every address a target's host
// resolves to is classified, and only public ones are used unless an admin allows private
// targets (Settings: webhookAllowPrivateTargets). Unspecified and multicast never are.
export type AddressClass = "public" | "private" | "loopback" | "linkLocal" | "unspecified" | "multicast" | "invalid";

// [first address as a 32-bit number, prefix length, class], most specific first where they nest.
const V4_RANGES: [string, number, AddressClass][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "private"], // carrier-grade NAT
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "linkLocal"], // cloud metadata services live here
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "private"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "private"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "unspecified"], // reserved, and the broadcast address
];

const v4Number = (a: string) => a.split(".").reduce((n, part) => n * 256 + Number(part), 0);

function classifyV4(a: string): AddressClass {
  const n = v4Number(a);
  for (const [base, bits, cls] of V4_RANGES) {
    const size = 2 ** (32 - bits);
    const start = v4Number(base);
    if (n >= start && n < start + size) return cls;
  }
  return "public";
}

/** The class of an IP address (IPv4, IPv6, v4-mapped/-translated IPv6 by their IPv4 part). */
export function classifyAddress(address: string): AddressClass {
  let a = address.trim().toLowerCase();
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1);
  if (isIPv4(a)) return classifyV4(a);
  if (!isIPv6(a)) return "invalid";
  // A zone (fe80::1%eth0) only exists on link-local addresses.
  if (a.includes("%")) return "linkLocal";
  // The URL parser writes IPv6 canonically: mapped IPv4 as ::ffff:7f00:1.
  const canonical = new URL(`http://[${a}]`).hostname.slice(1, -1);
  const embedded = /^(?:::ffff:|64:ff9b::|::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (embedded && canonical !== "::1") {
    const hi = parseInt(embedded[1]!, 16);
    const lo = parseInt(embedded[2]!, 16);
    return classifyV4([hi >> 8, hi & 255, lo >> 8, lo & 255].join("."));
  }
  if (canonical === "::") return "unspecified";
  if (canonical === "::1") return "loopback";
  const first = parseInt(canonical.split(":")[0] || "0", 16);
  if ((first & 0xfe00) === 0xfc00) return "private"; // fc00::/7
  if ((first & 0xffc0) === 0xfe80) return "linkLocal"; // fe80::/10
  if ((first & 0xff00) === 0xff00) return "multicast";
  return "public";
}

/** Whether a webhook may connect to `address`: public always; private, loopback and link-local only when allowed. */
export function webhookAddressAllowed(address: string, allowPrivate: boolean): boolean {
  const cls = classifyAddress(address);
  if (cls === "public") return true;
  return allowPrivate && (cls === "private" || cls === "loopback" || cls === "linkLocal");
}
