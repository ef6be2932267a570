import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";

// Outgoing connections through an HTTPS proxy, shared by the agent (its connection to the fleet)
// and the control plane (webhook deliveries): neither program imports the other, both import this.
// The caller passes the environment: the server reads it through lib/env.ts, the agent from its own.

/** One NO_PROXY entry, parsed once: a CIDR or IP, a domain, or `*`; with the port it is limited to. */
type NoProxyEntry =
  { kind: "all" } | { kind: "cidr"; net: net.BlockList; port?: number } | { kind: "domain"; domain: string; port?: number };

function parsePort(text: string | undefined): number | undefined | null {
  if (text === undefined) return undefined;
  const port = Number(text);
  return /^\d{1,5}$/.test(text) && port > 0 && port < 65_536 ? port : null;
}

/**
 * An entry as curl reads it (`*`, a host or domain, `.domain`, an IP or a CIDR, IPv6 without or
 * with brackets), plus a port: `host:port` and `[v6]:port` apply to that port only, as Go's
 * httpproxy does (curl never matches an entry that has one). Null: not an entry (ignored).
 */
function parseNoProxyEntry(raw: string): NoProxyEntry | null {
  let entry = raw.trim().toLowerCase();
  if (!entry) return null;
  if (entry === "*") return { kind: "all" };
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?(\/\d+)?$/.exec(entry);
  if (bracketed) {
    entry = bracketed[1]! + (bracketed[3] ?? "");
    portText = bracketed[2];
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    // One colon: host:port (an IPv6 address has at least two).
    [entry, portText] = entry.split(":") as [string, string];
  }
  const port = parsePort(portText);
  if (port === null) return null;
  const [address, bitsText] = entry.split("/") as [string, string | undefined];
  const family = net.isIPv4(address) ? "ipv4" : net.isIPv6(address) ? "ipv6" : null;
  if (family) {
    const max = family === "ipv4" ? 32 : 128;
    const bits = bitsText === undefined ? max : Number(bitsText);
    if (!/^\d+$/.test(bitsText ?? String(max)) || bits > max) return null;
    const list = new net.BlockList();
    list.addSubnet(address, bits, family);
    return { kind: "cidr", net: list, port };
  }
  if (bitsText !== undefined) return null;
  // `.example.com`, `*.example.com` and `example.com` all match the domain and its subdomains.
  const domain = entry.replace(/^\*?\./, "").replace(/\.$/, "");
  return domain ? { kind: "domain", domain, port } : null;
}

/** True when NO_PROXY (or no_proxy) says `host:port` is reached directly. */
export function bypassesProxy(host: string, port: number, noProxy: string): boolean {
  const bare = host
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.$/, "");
  const family = net.isIPv4(bare) ? "ipv4" : net.isIPv6(bare) ? "ipv6" : null;
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = parseNoProxyEntry(raw);
    if (!entry) continue;
    if (entry.kind === "all") return true;
    if (entry.port !== undefined && entry.port !== port) continue;
    if (
      entry.kind === "cidr"
        ? family !== null && entry.net.check(bare, family)
        : bare === entry.domain || bare.endsWith("." + entry.domain)
    )
      return true;
  }
  return false;
}

/**
 * The proxy for a connection to `host` (`port`: 443 unless said), from HTTPS_PROXY (or
 * https_proxy) unless NO_PROXY (or no_proxy) names it: `*`, a host or domain (`example.com`,
 * `.example.com` and `*.example.com` all match its subdomains), an IP or CIDR (IPv4 or IPv6, with
 * or without brackets), each optionally with `:port`. Read per connection, as curl and Go do. A
 * proxy URL without a scheme is http://.
 */
export function proxyFor(host: string, env: Record<string, string | undefined>, port = 443): URL | null {
  const proxy = env.HTTPS_PROXY || env.https_proxy;
  if (!proxy) return null;
  if (bypassesProxy(host, port, env.NO_PROXY || env.no_proxy || "")) return null;
  try {
    return new URL(proxy.includes("://") ? proxy : `http://${proxy}`);
  } catch {
    return null;
  }
}

/** The Proxy-Authorization header for a proxy URL with a user name, else none. */
export function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { "proxy-authorization": `Basic ${Buffer.from(credentials).toString("base64")}` };
}

/** The port a proxy URL names, else curl's default: 443 for https://, 80 for http://. */
export function proxyPort(proxy: URL): number {
  return Number(proxy.port) || (proxy.protocol === "https:" ? 443 : 80);
}

/** How long a proxy may take to open a tunnel when the caller names no deadline. */
export const CONNECT_TIMEOUT_MS = 15_000;

export interface TunnelOptions {
  signal?: AbortSignal;
  /** The whole CONNECT exchange (TCP, TLS to an https:// proxy, the proxy's answer). */
  timeoutMs?: number;
  /** PEM bundle trusted for an https:// proxy's certificate, beside Node's public roots. */
  proxyCaPem?: string;
}

/**
 * A CONNECT tunnel through `proxy` to `host:port` (the agent's connection to the fleet, and the
 * webhook poster's to a checked address): the raw socket once the proxy answers 200. An https://
 * proxy is spoken to over TLS (its certificate checked against the public roots and `proxyCaPem`);
 * its default port is 443, an http:// proxy's 80, as curl's.
 */
export function connectTunnel(proxy: URL, host: string, port: number, options: TunnelOptions = {}): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const target = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    // Never around the proxy: a scheme that cannot be spoken fails the connection.
    if (proxy.protocol !== "http:" && proxy.protocol !== "https:")
      return reject(
        Object.assign(new Error(`the proxy ${proxy.protocol}//${proxy.host} is neither http:// nor https://`), {
          code: "EPROXY",
        }),
      );
    const secure = proxy.protocol === "https:";
    const proxyHost = proxy.hostname.replace(/^\[|\]$/g, "");
    const timeoutMs = options.timeoutMs ?? CONNECT_TIMEOUT_MS;
    const common = {
      host: proxyHost,
      port: proxyPort(proxy),
      method: "CONNECT",
      path: target,
      headers: { host: target, ...proxyAuthorization(proxy) },
      signal: options.signal,
      agent: false as const,
    };
    const req = secure
      ? https.request({
          ...common,
          servername: net.isIP(proxyHost) ? undefined : proxyHost,
          ...(options.proxyCaPem ? { ca: [...tls.rootCertificates, options.proxyCaPem] } : {}),
        })
      : http.request(common);
    const timer = setTimeout(
      () =>
        req.destroy(
          Object.assign(
            new Error(`the proxy ${proxy.host} opened no tunnel to ${target} within ${Math.round(timeoutMs / 1000)}s`),
            {
              code: "ETIMEDOUT",
            },
          ),
        ),
      timeoutMs,
    );
    req.once("connect", (res, socket) => {
      clearTimeout(timer);
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      reject(
        Object.assign(new Error(`the proxy ${proxy.host} refused CONNECT ${target} with HTTP ${res.statusCode}`), {
          code: "EPROXY",
        }),
      );
    });
    req.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end();
  });
}
