// TLS as an agent sees it, for the tests that check it against the real server: session
// resumption, and the certificate a port presents.
import { X509Certificate } from "node:crypto";
import { connect as tlsConnect } from "node:tls";
import { heartbeatBody, type ClientCert } from "./agent-client";
import type { FleetServer } from "./fleet-server";

/**
 * One heartbeat on a fresh TLS connection to `server`'s agent port, resuming `session` if given
 * (raw tls.connect: the test holds the session ticket itself).
 */
export function heartbeatOnNewConnection(
  server: FleetServer,
  client: ClientCert,
  session?: Buffer,
): Promise<{ status: number; reused: boolean; session: Buffer | null }> {
  const body = JSON.stringify(heartbeatBody());
  return new Promise((resolve, reject) => {
    let ticket: Buffer | null = null;
    let reused = false;
    let text = "";
    const socket = tlsConnect({ host: "127.0.0.1", port: server.agentPort, ca: server.caPem, ...client, session }, () => {
      reused = socket.isSessionReused();
      // Written, not ended: HTTP/1.0 has the server close the connection after its answer.
      socket.write(
        `POST /api/agent/v1/heartbeat HTTP/1.0\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    socket.on("session", (s: Buffer) => (ticket = s));
    socket.on("data", (c: Buffer) => (text += c.toString("utf8")));
    socket.on("error", reject);
    socket.on("close", () => resolve({ status: Number(/^HTTP\/1\.\d (\d{3})/.exec(text)?.[1] ?? 0), reused, session: ticket }));
  });
}

/** The server certificate a loopback TLS port presents, fetched without trusting anything. */
export function presentedCertificate(port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      resolve(new X509Certificate(raw));
    });
    socket.on("error", reject);
  });
}
