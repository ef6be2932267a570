// The client side of bench:connections: one kept-alive mutual-TLS connection per client
// certificate, a heartbeat on each every `interval` seconds (0: one, then idle). Raw HTTP/1.1 on
// tls.connect keeps this process small. Prints "opened N in T ms (E errors)" once all are open.
import { readFileSync } from "node:fs";
import tls from "node:tls";

const { port, ca, clients, interval } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const body = JSON.stringify({
  agentVersion: "1.4.0",
  kubernetesVersion: "1.30.2",
  nodePools: [
    {
      name: "system",
      nodeCount: 3,
      readyNodes: 3,
      kubeletVersion: "1.30.2",
      instanceType: "m5.large",
      cpuCores: 6,
      memoryGiB: 24,
    },
  ],
  workloads: { pods: 120, namespaces: 14 },
  health: { apiServer: "ok", logs: true, metrics: true },
  policy: { appliedRevision: null },
  acks: [],
});
const request =
  "POST /api/agent/v1/heartbeat HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\n" +
  `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const sockets = [];
let errors = 0;
let statuses = new Map();
const open = (client) =>
  new Promise((resolve) => {
    const s = tls.connect({ host: "127.0.0.1", port, ca, ...client, servername: "localhost" }, () => s.write(request));
    s.setEncoding("utf8");
    s.on("data", (d) => {
      const m = /^HTTP\/1\.1 (\d+)/.exec(d);
      if (m) statuses.set(m[1], (statuses.get(m[1]) ?? 0) + 1);
      resolve(s);
    });
    s.on("error", () => {
      errors++;
      resolve(null);
    });
  });
// Each connection heartbeats from its first answer on, as an agent does: one left idle while the
// rest open would outlive the server's keep-alive timeout and be closed before the reading.
const heartbeat = (s) =>
  interval > 0 && setInterval(() => !s.destroyed && s.write(request), interval * 1000 * (0.9 + Math.random() * 0.2));
let next = 0;
const started = Date.now();
await Promise.all(
  Array.from({ length: 64 }, async () => {
    while (next < clients.length) {
      const s = await open(clients[next++]);
      if (s) {
        sockets.push(s);
        heartbeat(s);
      }
    }
  }),
);
process.stdout.write(
  `opened ${sockets.length} in ${Date.now() - started} ms, ${errors} errors, answers ${JSON.stringify(Object.fromEntries(statuses))}\n`,
);
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
