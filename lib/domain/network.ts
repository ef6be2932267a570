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
// targets (the setting webhookAllowPrivateTargets). The classes come from the IANA IPv4 and IPv6
// Special-Purpose Address Registries (plus the IPv6 address space: only 2000::/3 is global
// unicast, the rest of it is reserved) and from the clouds' metadata services.
export type AddressClass =
  "public" | "private" | "loopback" | "linkLocal" | "metadata" | "reserved" | "unspecified" | "multicast" | "invalid";

/** What a class lets a webhook do: go there always, only where private targets are allowed, or never. */
export const ADDRESS_REACH: Record<AddressClass, "always" | "private" | "never"> = {
  public: "always",
  private: "private",
  loopback: "private",
  // Link-local and metadata hold the machine's cloud credentials: no setting opens them.
  linkLocal: "never",
  metadata: "never",
  reserved: "never",
  unspecified: "never",
  multicast: "never",
  invalid: "never",
};

/**
 * One row of a registry: a prefix, what it is, and its class; or, for the forms that carry an
 * IPv4 address, the bit at which that address starts (it is then classified as that IPv4).
 * The longest matching prefix wins, so a row may carve an exception out of a wider one.
 */
type Range = { prefix: string; what: string } & ({ class: AddressClass } | { embedsV4At: number });

export const IPV4_RANGES: readonly Range[] = [
  { prefix: "0.0.0.0/0", what: "public (in no special-purpose range)", class: "public" },
  { prefix: "0.0.0.0/8", what: '"this network" (RFC 791)', class: "unspecified" },
  { prefix: "10.0.0.0/8", what: "private use (RFC 1918)", class: "private" },
  { prefix: "100.64.0.0/10", what: "shared address space, carrier-grade NAT (RFC 6598)", class: "private" },
  { prefix: "100.100.100.200/32", what: "Alibaba Cloud metadata service", class: "metadata" },
  { prefix: "127.0.0.0/8", what: "loopback (RFC 1122)", class: "loopback" },
  { prefix: "169.254.0.0/16", what: "link-local (RFC 3927), where cloud metadata services live", class: "linkLocal" },
  { prefix: "172.16.0.0/12", what: "private use (RFC 1918)", class: "private" },
  { prefix: "192.0.0.0/24", what: "IETF protocol assignments (RFC 6890), DS-Lite, NAT64 discovery", class: "reserved" },
  { prefix: "192.0.0.9/32", what: "Port Control Protocol anycast (RFC 7723)", class: "public" },
  { prefix: "192.0.0.10/32", what: "TURN anycast (RFC 8155)", class: "public" },
  { prefix: "192.0.2.0/24", what: "documentation TEST-NET-1 (RFC 5737)", class: "reserved" },
  { prefix: "192.31.196.0/24", what: "AS112-v4 (RFC 7535)", class: "public" },
  { prefix: "192.52.193.0/24", what: "AMT (RFC 7450)", class: "public" },
  { prefix: "192.88.99.0/24", what: "deprecated 6to4 relay anycast (RFC 7526)", class: "reserved" },
  { prefix: "192.168.0.0/16", what: "private use (RFC 1918)", class: "private" },
  { prefix: "192.175.48.0/24", what: "AS112 direct delegation (RFC 7534)", class: "public" },
  { prefix: "198.18.0.0/15", what: "benchmarking (RFC 2544)", class: "private" },
  { prefix: "198.51.100.0/24", what: "documentation TEST-NET-2 (RFC 5737)", class: "reserved" },
  { prefix: "203.0.113.0/24", what: "documentation TEST-NET-3 (RFC 5737)", class: "reserved" },
  { prefix: "224.0.0.0/4", what: "multicast (RFC 5771)", class: "multicast" },
  { prefix: "240.0.0.0/4", what: "reserved (RFC 1112)", class: "reserved" },
  { prefix: "255.255.255.255/32", what: "limited broadcast (RFC 919)", class: "unspecified" },
];

export const IPV6_RANGES: readonly Range[] = [
  { prefix: "::/0", what: "reserved or unassigned (outside global unicast)", class: "reserved" },
  { prefix: "::/128", what: "unspecified (RFC 4291)", class: "unspecified" },
  { prefix: "::1/128", what: "loopback (RFC 4291)", class: "loopback" },
  { prefix: "::/96", what: "IPv4-compatible, deprecated (RFC 4291)", embedsV4At: 96 },
  { prefix: "::ffff:0:0/96", what: "IPv4-mapped (RFC 4291)", embedsV4At: 96 },
  { prefix: "::ffff:0:0:0/96", what: "IPv4-translated (RFC 2765)", embedsV4At: 96 },
  { prefix: "64:ff9b::/96", what: "NAT64 well-known prefix (RFC 6052)", embedsV4At: 96 },
  // Where the IPv4 sits depends on the prefix length the network chose: not decodable here,
  // and the network's own translator by definition.
  { prefix: "64:ff9b:1::/48", what: "NAT64 local-use prefix (RFC 8215)", class: "private" },
  { prefix: "100::/64", what: "discard-only (RFC 6666)", class: "reserved" },
  { prefix: "100:0:0:1::/64", what: "dummy prefix (RFC 9780)", class: "reserved" },
  { prefix: "2000::/3", what: "global unicast", class: "public" },
  { prefix: "2001::/23", what: "IETF protocol assignments (RFC 2928)", class: "reserved" },
  // The client's IPv4 is obfuscated in the address and reached through a relay: never a receiver.
  { prefix: "2001::/32", what: "Teredo (RFC 4380)", class: "reserved" },
  { prefix: "2001:1::1/128", what: "Port Control Protocol anycast (RFC 7723)", class: "public" },
  { prefix: "2001:1::2/128", what: "TURN anycast (RFC 8155)", class: "public" },
  { prefix: "2001:1::3/128", what: "DNS-SD service registration anycast (RFC 9665)", class: "public" },
  { prefix: "2001:2::/48", what: "benchmarking (RFC 5180)", class: "private" },
  { prefix: "2001:3::/32", what: "AMT (RFC 7450)", class: "public" },
  { prefix: "2001:4:112::/48", what: "AS112-v6 (RFC 7535)", class: "public" },
  { prefix: "2001:10::/28", what: "ORCHID, deprecated (RFC 4843)", class: "reserved" },
  { prefix: "2001:20::/28", what: "ORCHIDv2 (RFC 7343)", class: "public" },
  { prefix: "2001:30::/28", what: "drone remote ID entity tags (RFC 9374)", class: "public" },
  { prefix: "2001:db8::/32", what: "documentation (RFC 3849)", class: "reserved" },
  { prefix: "2002::/16", what: "6to4 (RFC 3056)", embedsV4At: 16 },
  { prefix: "2620:4f:8000::/48", what: "AS112 direct delegation (RFC 7534)", class: "public" },
  { prefix: "3fff::/20", what: "documentation (RFC 9637)", class: "reserved" },
  { prefix: "5f00::/16", what: "SRv6 segment identifiers (RFC 9602)", class: "reserved" },
  { prefix: "fc00::/7", what: "unique local (RFC 4193)", class: "private" },
  { prefix: "fd00:ec2::254/128", what: "AWS instance metadata service", class: "metadata" },
  { prefix: "fd20:ce::254/128", what: "Google Cloud metadata server", class: "metadata" },
  { prefix: "fe80::/10", what: "link-local (RFC 4291)", class: "linkLocal" },
  { prefix: "fec0::/10", what: "site-local, deprecated (RFC 3879): internal like unique local", class: "private" },
  { prefix: "ff00::/8", what: "multicast (RFC 4291)", class: "multicast" },
];

/** An IPv4 (32-bit) or IPv6 (128-bit) address as a number; null when unparsable. */
function v4Bits(a: string): bigint | null {
  if (!isIPv4(a)) return null;
  return a.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function v6Bits(a: string): bigint | null {
  if (!isIPv6(a)) return null;
  let text = a;
  // A trailing dotted quad is the last two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = v4Bits(quad[1]!)!;
    text = `${text.slice(0, quad.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const groups = (s: string) => (s ? s.split(":") : []);
  const all =
    tail === undefined
      ? groups(head)
      : [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill("0"), ...groups(tail)];
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

type Compiled = { base: bigint; bits: number; range: Range };

function compile(ranges: readonly Range[], parse: (a: string) => bigint | null): Compiled[] {
  return ranges
    .map((range) => {
      const [address, bits] = range.prefix.split("/") as [string, string];
      const base = parse(address);
      if (base === null) throw new Error(`bad prefix ${range.prefix}`);
      return { base, bits: Number(bits), range };
    })
    .sort((x, y) => y.bits - x.bits);
}

const V4 = compile(IPV4_RANGES, v4Bits);
const V6 = compile(IPV6_RANGES, v6Bits);

/** The most specific row whose prefix holds `n` (each table has a /0 row, so there is always one). */
function longestMatch(table: Compiled[], width: number, n: bigint): Range {
  for (const { base, bits, range } of table) {
    const shift = BigInt(width - bits);
    if (n >> shift === base >> shift) return range;
  }
  throw new Error("no /0 row");
}

export type AddressInfo = { class: AddressClass; what: string; prefix: string | null };

/** The registry row an address falls in (an embedded IPv4 is looked up as itself). */
export function describeAddress(address: string): AddressInfo {
  let a = address.trim().toLowerCase();
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1);
  // A zone (fe80::1%eth0) only exists on link-local addresses.
  if (a.includes("%") && isIPv6(a.slice(0, a.indexOf("%"))))
    return { class: "linkLocal", what: "scoped to an interface", prefix: null };
  const v4 = v4Bits(a);
  if (v4 !== null) {
    const row = longestMatch(V4, 32, v4);
    return { class: "class" in row ? row.class : "invalid", what: row.what, prefix: row.prefix };
  }
  const v6 = v6Bits(a);
  if (v6 === null) return { class: "invalid", what: "not an IP address", prefix: null };
  const row = longestMatch(V6, 128, v6);
  if ("class" in row) return { class: row.class, what: row.what, prefix: row.prefix };
  const embedded = (v6 >> BigInt(128 - 32 - row.embedsV4At)) & 0xffffffffn;
  const inner = longestMatch(V4, 32, embedded);
  return {
    class: "class" in inner ? inner.class : "invalid",
    what: `${row.what} of ${[24n, 16n, 8n, 0n].map((s) => (embedded >> s) & 255n).join(".")}: ${inner.what}`,
    prefix: row.prefix,
  };
}

/** The class of an IP address (IPv4, IPv6; the forms that carry an IPv4 address by that address). */
export function classifyAddress(address: string): AddressClass {
  return describeAddress(address).class;
}

/**
 * Whether a webhook may connect to `address`: public always; private and loopback only when
 * allowed; link-local, metadata, reserved, unspecified and multicast never.
 */
export function webhookAddressAllowed(address: string, allowPrivate: boolean): boolean {
  const reach = ADDRESS_REACH[classifyAddress(address)];
  return reach === "always" || (allowPrivate && reach === "private");
}
