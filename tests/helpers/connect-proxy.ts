// A loopback HTTP proxy that answers CONNECT only, recording each tunnel's target and its
// Proxy-Authorization header: what a corporate egress proxy does for TLS traffic.
import http from "node:http";
import net from "node:net";

export interface ConnectProxy {
  port: number;
  url: string;
  /** "<host:port> <proxy-authorization>" per CONNECT, oldest first. */
  connects: string[];
  close(): void;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const connects: string[] = [];
  const tunnels: net.Socket[] = [];
  const proxy = http.createServer((_req, res) => res.writeHead(405).end());
  proxy.on("connect", (req: http.IncomingMessage, client: net.Socket) => {
    connects.push(`${req.url} ${req.headers["proxy-authorization"] ?? ""}`.trim());
    tunnels.push(client);
    const [host, port] = String(req.url).split(":");
    const upstream = net.connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      tunnels.push(upstream);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  const port = (proxy.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    connects,
    close() {
      for (const t of tunnels) t.destroy();
      proxy.close();
    },
  };
}
