import { isIP } from "node:net";
import { isLoopbackAddress } from "./network";

// Which Host names the console port answers for its unauthenticated-by-browser endpoints (metrics).
// A page on another site can make a visitor's browser send requests to this server under the
// attacker's own name (DNS rebinding: evil.example resolving to 127.0.0.1 or a pod address), and
// read the answers, since for the browser they are same-origin. The Host header then carries that
// foreign name, so a request is served only under a name the server is known by: the configured
// public URL's host, its own addresses (a page under an address is that address's own origin,
// never an attacker's), and, when it listens on loopback only, the loopback names.

/** The host name of a Host header, lowercase, without port or IPv6 brackets; null when malformed. */
export function hostnameOf(host: string | null | undefined): string | null {
  if (!host) return null;
  try {
    const url = new URL(`http://${host.trim()}`);
    if (url.username || url.password || url.pathname !== "/" || url.search || url.hash) return null;
    return url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  } catch {
    return null;
  }
}

/** Whether the server's bind address (HOST) accepts only connections from the machine itself. */
export function isLoopbackBind(bind: string): boolean {
  const host = bind.trim().toLowerCase();
  return host === "localhost" || isLoopbackAddress(host);
}

export type ServedHosts = {
  /** The host name of the configured public URL (NEXTAUTH_URL), if any. */
  publicHost: string | null;
  /** The bind address (HOST). */
  bind: string;
  /** This machine's own interface addresses. */
  ownAddresses: readonly string[];
};

/** Whether a request's Host header names this server (see above). */
export function servesHost(host: string | null | undefined, served: ServedHosts): boolean {
  const name = hostnameOf(host);
  if (!name) return false;
  if (served.publicHost && name === served.publicHost.toLowerCase()) return true;
  if (isLoopbackBind(served.bind)) return name === "localhost" || isLoopbackAddress(name);
  if (isIP(name) === 0) return name === served.bind.trim().toLowerCase();
  return served.ownAddresses.some((a) => hostnameOf(bracketed(a.replace(/%.*$/, ""))) === name);
}

const bracketed = (address: string) => (isIP(address) === 6 ? `[${address}]` : address);
