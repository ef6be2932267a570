import http from "node:http";

// The pod's probes. /healthz answers as long as the process runs its event loop: a control-plane
// outage must not make Kubernetes restart every agent of the fleet at once. /readyz reports
// whether the agent is registered and heartbeating. With --metrics, /metrics serves Prometheus's
// text format on the same port.

export interface HealthSubject {
  readonly ready: boolean;
  /** The Prometheus exposition; absent: no /metrics (404). */
  metrics?(): string;
  /** Why not, in a few words (an idle agent says what it waits for). */
  readonly reason?: string | null;
}

/**
 * Listens on `host`, by default on every address of both families (`::`, dual stack): the kubelet
 * probes the pod's IP, which is IPv6 on a single-stack IPv6 cluster. Where the node has no IPv6
 * at all, `::` cannot be bound and IPv4's 0.0.0.0 is used instead.
 */
export async function startHealthServer(port: number, subject: HealthSubject, host?: string): Promise<http.Server> {
  if (host) return listen(healthServer(subject), port, host);
  try {
    return await listen(healthServer(subject), port, "::");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "EAFNOSUPPORT" && code !== "EADDRNOTAVAIL") throw err;
    return listen(healthServer(subject), port, "0.0.0.0");
  }
}

function healthServer(subject: HealthSubject): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end();
      return;
    }
    if (path === "/healthz") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    } else if (path === "/readyz") {
      const ready = subject.ready;
      res
        .writeHead(ready ? 200 : 503, { "content-type": "text/plain" })
        .end(ready ? "ready\n" : `not ready: ${subject.reason ?? "not registered or not heartbeating"}\n`);
    } else if (path === "/metrics" && subject.metrics) {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(subject.metrics());
    } else {
      res.writeHead(404).end();
    }
  });
}

function listen(server: http.Server, port: number, host: string): Promise<http.Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, ipv6Only: false }, () => resolve(server));
  });
}
