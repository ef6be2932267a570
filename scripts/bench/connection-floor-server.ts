// The server side of bench:connections: a bare Node HTTPS server with the agent port's TLS
// settings (policy, client certificates requested, ECDSA certificate, ticket key) and nothing
// behind it, so the memory a kept-alive mutual-TLS connection costs Node and OpenSSL shows alone.
// Answers "mem" on stdin with process.memoryUsage() after a full GC (run with --expose-gc).
import https from "node:https";
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { AGENT_TLS_POLICY } from "../../lib/server/agent-port/agent-server";

const [certFile, keyFile, caFile, port] = process.argv.slice(2) as [string, string, string, string];
let open = 0;
const server = https.createServer(
  {
    cert: readFileSync(certFile),
    key: readFileSync(keyFile),
    ca: readFileSync(caFile),
    ...AGENT_TLS_POLICY,
    requestCert: true,
    rejectUnauthorized: false,
    ticketKeys: randomBytes(48),
    sessionIdContext: "bench",
  },
  (_req, res) => {
    const reply = '{"status":"Ready"}';
    res.writeHead(200, { "content-type": "application/json", "content-length": reply.length });
    res.end(reply);
  },
);
server.on("connection", (s) => {
  open++;
  s.once("close", () => open--);
});
server.keepAliveTimeout = 10 * 60_000;
server.listen({ port: Number(port), host: "127.0.0.1", backlog: 4096 }, () => process.stdout.write("ready\n"));
process.stdin.setEncoding("utf8");
process.stdin.on("data", () => {
  (globalThis as { gc?: () => void }).gc?.();
  process.stdout.write(JSON.stringify({ open, ...process.memoryUsage() }) + "\n");
});
process.stdin.on("end", () => process.exit(0));
