// The server side of bench:tls: the agent port's TLS settings (policy, client certificates
// requested, fixed session id context, a ticket key) with nothing behind them. Writes one byte
// after each handshake (so the client knows the server finished it), prints its port, and answers
// "cpu" on stdin with the CPU time it used since the last "cpu" (microseconds) and its handshakes.
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import tls from "node:tls";
import { AGENT_TLS_POLICY } from "../../lib/server/agent-port/agent-server";

const [certFile, keyFile, caFile, ticketKeyHex, port] = process.argv.slice(2) as [string, string, string, string, string];
let handshakes = 0;
let resumed = 0;
const server = tls.createServer(
  {
    cert: readFileSync(certFile),
    key: readFileSync(keyFile),
    ca: readFileSync(caFile),
    ...AGENT_TLS_POLICY,
    requestCert: true,
    rejectUnauthorized: false,
    ticketKeys: Buffer.from(ticketKeyHex, "hex"),
    sessionIdContext: "bench",
    sessionTimeout: 3600,
  },
  (socket) => {
    handshakes++;
    if (socket.isSessionReused()) resumed++;
    if (!socket.authorized) process.stderr.write(`client not authorized: ${String(socket.authorizationError)}\n`);
    socket.on("error", () => {});
    socket.end("k");
  },
);
server.listen(Number(port), "127.0.0.1", () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));

let last = process.cpuUsage();
process.stdin.setEncoding("utf8");
process.stdin.on("data", () => {
  const used = process.cpuUsage(last);
  last = process.cpuUsage();
  process.stdout.write(JSON.stringify({ cpuMicros: used.user + used.system, handshakes, resumed }) + "\n");
  handshakes = 0;
  resumed = 0;
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
