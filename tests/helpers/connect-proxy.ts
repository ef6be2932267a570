// A loopback proxy that answers CONNECT only, recording each tunnel's target and its
// Proxy-Authorization header: what a corporate egress proxy does for TLS traffic. Spoken to over
// plain HTTP, or over TLS when given a certificate (an https:// proxy); `silent` accepts the
// connection and never answers (a proxy that hangs).
import http from "node:http";
import https from "node:https";
import net from "node:net";

export interface ConnectProxy {
  port: number;
  url: string;
  /** "<host:port> <proxy-authorization>" per CONNECT, oldest first. */
  connects: string[];
  close(): void;
}

export interface ConnectProxyOptions {
  tls?: { keyPem: string; certPem: string };
  silent?: boolean;
  /** Listen on ::1 instead of 127.0.0.1. */
  ipv6?: boolean;
}

export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const connects: string[] = [];
  const tunnels: net.Socket[] = [];
  const refuse = (_req: http.IncomingMessage, res: http.ServerResponse) => res.writeHead(405).end();
  const proxy = options.tls
    ? https.createServer({ key: options.tls.keyPem, cert: options.tls.certPem }, refuse)
    : http.createServer(refuse);
  proxy.on("connect", (req: http.IncomingMessage, client: net.Socket) => {
    connects.push(`${req.url} ${req.headers["proxy-authorization"] ?? ""}`.trim());
    tunnels.push(client);
    if (options.silent) return;
    const url = String(req.url);
    const colon = url.lastIndexOf(":");
    const host = url.slice(0, colon).replace(/^\[|\]$/g, "");
    const upstream = net.connect(Number(url.slice(colon + 1)), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      tunnels.push(upstream);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
  });
  const host = options.ipv6 ? "::1" : "127.0.0.1";
  await new Promise<void>((r) => proxy.listen(0, host, r));
  const port = (proxy.address() as net.AddressInfo).port;
  return {
    port,
    url: `${options.tls ? "https" : "http"}://${options.ipv6 ? "[::1]" : host}:${port}`,
    connects,
    close() {
      for (const t of tunnels) t.destroy();
      proxy.close();
    },
  };
}
