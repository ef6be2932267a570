// The baseline for bench:heartbeat: a bare Node HTTPS server with mutual TLS that parses the
// JSON body and answers JSON, i.e. the protocol's transport cost with no application behind it.
import https from "node:https";
import { readFileSync } from "node:fs";

const [certFile, keyFile, caFile, port] = process.argv.slice(2) as [string, string, string, string];
const server = https.createServer(
  {
    cert: readFileSync(certFile),
    key: readFileSync(keyFile),
    ca: readFileSync(caFile),
    requestCert: true,
    rejectUnauthorized: true,
  },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { agentVersion?: string };
      const reply = JSON.stringify({
        status: "Ready",
        heartbeatIntervalSeconds: 15,
        desiredPolicyRevision: null,
        directives: [],
        echo: body.agentVersion,
      });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) });
      res.end(reply);
    });
  },
);
server.keepAliveTimeout = 65_000;
server.listen(Number(port), "127.0.0.1", () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
