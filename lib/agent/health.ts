import http from "node:http";

// The pod's probes. /healthz answers as long as the process runs its event loop: a control-plane
// outage must not make Kubernetes restart every agent of the fleet at once. /readyz reports
// whether the agent is registered and heartbeating.

export interface HealthSubject {
  readonly ready: boolean;
}

export function startHealthServer(port: number, subject: HealthSubject, host = "0.0.0.0"): Promise<http.Server> {
  const server = http.createServer((req, res) => {
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
        .end(ready ? "ready\n" : "not registered or not heartbeating\n");
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}
