import "server-only";
import https from "node:https";
import type http from "node:http";
import type { TLSSocket } from "node:tls";
import { X509Certificate } from "node:crypto";
import type { FleetCa } from "@/lib/server/pki/fleet-ca";
import { issueServerCertificate } from "@/lib/server/pki/server-certificate";
import { errorReply } from "@/lib/server/api/errors";
import { readJsonStream } from "@/lib/server/api/read-body";
import { recordHeartbeat } from "@/lib/server/heartbeats/record-heartbeat";
import { handleRegistration } from "@/lib/server/clusters/registration-endpoint";
import { agentIdentity, IDENTITY_HEADERS } from "./agent-identity";
import { isTrustedProxy, stripUntrustedForwarding, trustedProxies } from "@/lib/server/net/trusted-proxies";
import { incCounter, observe } from "@/lib/server/metrics/registry";
import { HEARTBEAT_SECONDS_BUCKETS } from "@/lib/server/metrics/fleet-metrics";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** Headers that claim a client identity are only ever set by this process, never accepted. */
export function stripIdentityHeaders(req: http.IncomingMessage) {
  for (const name of Object.keys(req.headers)) {
    if (name.startsWith("x-fleet-")) delete req.headers[name];
  }
}

export function fingerprintOf(fingerprint256: string): string {
  return `sha256:${fingerprint256.replace(/:/g, "").toLowerCase()}`;
}

/** Serial numbers compare as lowercase hex without leading zeros, whoever printed them. */
export function normalizeSerial(serial: string): string {
  return serial.toLowerCase().replace(/^0+(?=.)/, "");
}

function setIdentity(req: http.IncomingMessage, fingerprint: string, serial: string) {
  req.headers[IDENTITY_HEADERS.fingerprint] = fingerprint;
  req.headers[IDENTITY_HEADERS.serial] = normalizeSerial(serial);
}

/** A certificate forwarded by a TLS-terminating proxy: URL-encoded PEM, bare or in Envoy's Cert="...". */
function forwardedCertificate(value: string, ca: X509Certificate): X509Certificate | null {
  try {
    const m = /Cert="([^"]+)"/.exec(value);
    const cert = new X509Certificate(decodeURIComponent(m ? m[1]! : value));
    const now = Date.now();
    const valid = Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);
    return valid && cert.checkIssued(ca) && cert.verify(ca.publicKey) ? cert : null;
  } catch {
    return null;
  }
}

export function remoteAddress(req: http.IncomingMessage): string {
  return (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const json = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json), ...headers });
  res.end(json);
}

function readBody(req: http.IncomingMessage) {
  // Keep the stream open on an early exit so an oversized body still gets its 413.
  return readJsonStream(req.iterator({ destroyOnReturn: false }), req.headers["content-length"], req.headers["content-type"]);
}

function sendError(res: http.ServerResponse, err: unknown) {
  const r = errorReply(err);
  send(res, r.status, r.body, { ...r.headers, ...(r.status === 413 ? { connection: "close" } : {}) });
}

// The agent protocol's busy endpoints, dispatched on the agent port straight to the services
// their Next route handlers call (app/api/agent/v1/*/route.ts). Next's router alone capped a
// route near 1,000 requests/s on this hardware; these paths do not go through it.
const DIRECT: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>> = {
  "/api/agent/v1/heartbeat": async (req, res) => {
    const started = performance.now();
    res.once("finish", () => {
      observe(
        "fleet_heartbeat_duration_seconds",
        "Heartbeat handling time on this instance.",
        HEARTBEAT_SECONDS_BUCKETS,
        (performance.now() - started) / 1000,
      );
      incCounter("fleet_heartbeats_total", "Heartbeats answered by this instance, by HTTP status.", {
        code: String(res.statusCode),
      });
    });
    try {
      // Only the identity headers are read: no need to copy every header into a Headers object.
      const headers = { get: (name: string) => (req.headers[name] as string | undefined) ?? null };
      const body = await readBody(req);
      send(res, 200, await recordHeartbeat(await agentIdentity(headers), body));
    } catch (err) {
      sendError(res, err);
    }
  },
  "/api/agent/v1/register": async (req, res) => {
    const reply = await handleRegistration({
      authorization: req.headers.authorization ?? null,
      sourceAddress: (req.headers[IDENTITY_HEADERS.remoteAddress] as string | undefined) ?? null,
      readBody: () => readBody(req),
    });
    send(res, reply.status, reply.body, { ...reply.headers, ...(reply.status === 413 ? { connection: "close" } : {}) });
  },
};

/**
 * The agent port: HTTPS whose client certificates are requested but optional (registration has
 * none yet). A certificate that chains to the fleet CA and is within its validity becomes the
 * request's identity; everything about which cluster it is, and whether it is revoked, is
 * decided by the app (agent-identity.ts).
 */
export function createAgentServer(ca: FleetCa, hostnames: string[], proxyCidrs: string[], handle: Handler): https.Server {
  const { certPem, keyPem } = issueServerCertificate(ca, hostnames);
  const proxies = trustedProxies(proxyCidrs);
  const caCert = new X509Certificate(ca.certPem);
  return https.createServer(
    { key: keyPem, cert: certPem, ca: [ca.certPem], requestCert: true, rejectUnauthorized: false, minVersion: "TLSv1.2" },
    (req, res) => {
      stripIdentityHeaders(req);
      const address = remoteAddress(req);
      req.headers[IDENTITY_HEADERS.remoteAddress] = address;
      stripUntrustedForwarding(req, proxies, address);
      req.headers[IDENTITY_HEADERS.agentPort] = "1";
      const socket = req.socket as TLSSocket;
      if (socket.authorized) {
        const peer = socket.getPeerCertificate();
        if (peer?.fingerprint256 && peer.serialNumber) setIdentity(req, fingerprintOf(peer.fingerprint256), peer.serialNumber);
      } else if (isTrustedProxy(proxies, address)) {
        const header = req.headers["x-forwarded-client-cert"];
        const cert = typeof header === "string" ? forwardedCertificate(header, caCert) : null;
        if (cert) setIdentity(req, fingerprintOf(cert.fingerprint256), cert.serialNumber);
      }
      const direct = req.method === "POST" ? DIRECT[req.url ?? ""] : undefined;
      if (direct) direct(req, res).catch((err) => sendError(res, err));
      else handle(req, res);
    },
  );
}
