import http from "node:http";
import net from "node:net";

// Outgoing connections through an HTTPS proxy, shared by the agent (its connection to the fleet)
// and the control plane (webhook deliveries): neither program imports the other, both import this.
// The caller passes the environment: the server reads it through lib/env.ts, the agent from its own.

/**
 * The proxy for a connection to `host`, from HTTPS_PROXY (or https_proxy) unless NO_PROXY (or
 * no_proxy) names the host: `*`, an exact host or IP, or a domain (`example.com` and
 * `.example.com` both match its subdomains). Read per connection, as curl and Go do.
 */
export function proxyFor(host: string, env: Record<string, string | undefined>): URL | null {
  const proxy = env.HTTPS_PROXY || env.https_proxy;
  if (!proxy) return null;
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  for (const raw of (env.NO_PROXY || env.no_proxy || "").split(",")) {
    const entry = raw.trim().toLowerCase().replace(/:\d+$/, "");
    if (!entry) continue;
    if (entry === "*") return null;
    const domain = entry.replace(/^\*?\./, "");
    if (bare === domain || bare.endsWith("." + domain)) return null;
  }
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

/**
 * A CONNECT tunnel through `proxy` to `host:port` (the agent's connection to the fleet, and the
 * webhook poster's to a checked address): the raw socket once the proxy answers 200.
 */
export function connectTunnel(proxy: URL, host: string, port: number, signal?: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const target = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    const req = http.request({
      host: proxy.hostname.replace(/^\[|\]$/g, ""),
      port: proxy.port || 80,
      method: "CONNECT",
      path: target,
      headers: { host: target, ...proxyAuthorization(proxy) },
      signal,
    });
    req.once("connect", (res, socket) => {
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      reject(
        Object.assign(new Error(`the proxy ${proxy.host} refused CONNECT ${target} with HTTP ${res.statusCode}`), {
          code: "EPROXY",
        }),
      );
    });
    req.once("error", reject);
    req.end();
  });
}
