import "server-only";
import https from "node:https";
import type http from "node:http";
import type { TLSSocket } from "node:tls";
import { X509Certificate } from "node:crypto";
import type { CaState } from "@/lib/server/pki/current-ca";
import { issueServerCertificate } from "@/lib/server/pki/server-certificate";
import { addToGauge, incCounter } from "@/lib/server/metrics/registry";
import { ROTATE_MS } from "./tls-ticket-keys";
import { IDENTITY_HEADERS } from "./agent-identity";
import { dispatchNode, isProtocolPath } from "./protocol-dispatch";
import { dropForwardingHeaders, isTrustedProxy, trustedProxies, type ProxyList } from "@/lib/server/net/trusted-proxies";
import { chainsTo, ForwardedCertError, ForwardedIdentities } from "./forwarded-certificate";
import { ApiError, errorReply } from "@/lib/server/api/errors";
import { admitBody, BoundedRequest, refuseBeforeContinue } from "@/lib/server/net/body-limit";
import type { ClientCertProxies } from "@/lib/env";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export type AgentServerOptions = {
  /** The names agents reach the port by (its server certificate's). */
  hostnames: string[];
  /** TRUSTED_PROXY_CIDRS: whose X-Forwarded-For is believed (never an identity). */
  proxyCidrs: string[];
  /** Who may forward an agent's client certificate (env.ts clientCertProxies); null: nobody. */
  clientCertProxies: ClientCertProxies | null;
  /** TLS session ticket key (48 bytes). */
  ticketKey: Buffer;
  /** Answers the protocol's paths; the agent protocol's dispatcher unless a test probes the port. */
  serveProtocol?: Handler;
};

const FORWARDED_CLIENT_CERT = "x-forwarded-client-cert";
const NOT_SERVED_HERE =
  "The agent port serves only the agent protocol (/api/agent/v1/...); the console and the admin API are on the console port.";

function reply(res: http.ServerResponse, err: ApiError) {
  const { status, body } = errorReply(err);
  const json = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    "x-content-type-options": "nosniff",
  });
  res.end(json);
}

// Headers proxies commonly use to forward a client certificate. The agent port reads
// X-Forwarded-Client-Cert itself from a proven proxy (createAgentServer); no other reader ever sees one.
const CLIENT_CERT_HEADERS = ["x-forwarded-client-cert", "x-client-cert", "ssl-client-cert", "x-ssl-client-cert"];

/** Headers that claim a client identity are only ever set by this process, never accepted. */
export function stripIdentityHeaders(req: http.IncomingMessage) {
  for (const name of Object.keys(req.headers)) {
    if (name.startsWith("x-fleet-")) delete req.headers[name];
  }
  for (const name of CLIENT_CERT_HEADERS) delete req.headers[name];
}

export function fingerprintOf(fingerprint256: string): string {
  return `sha256:${fingerprint256.replace(/:/g, "").toLowerCase()}`;
}

/** Serial numbers compare as lowercase hex without leading zeros, whoever printed them. */
export function normalizeSerial(serial: string): string {
  return serial.toLowerCase().replace(/^0+(?=.)/, "");
}

function setIdentity(req: http.IncomingMessage, fingerprint: string, serial: string, expired = false) {
  req.headers[IDENTITY_HEADERS.fingerprint] = fingerprint;
  req.headers[IDENTITY_HEADERS.serial] = normalizeSerial(serial);
  if (expired) req.headers[IDENTITY_HEADERS.expired] = "1";
}

/**
 * TLS on the agent port (Mozilla "intermediate"): TLS 1.2 and 1.3 only, forward-secret AEAD
 * suites only (ECDHE with AES-GCM or ChaCha20-Poly1305; TLS 1.3's suites are all of that kind),
 * the server's order first. No CBC, no static RSA key exchange, no SHA-1 MACs.
 */
export const AGENT_TLS_POLICY = {
  minVersion: "TLSv1.2",
  ciphers: [
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
    "ECDHE-ECDSA-AES128-GCM-SHA256",
    "ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384",
    "ECDHE-ECDSA-CHACHA20-POLY1305",
    "ECDHE-RSA-CHACHA20-POLY1305",
  ].join(":"),
  honorCipherOrder: true,
} as const;

/**
 * Session resumption (tls-ticket-keys.ts): the same context on every instance and every start
 * (Node's default is a hash of the process's argv, which differs between installs), so a session
 * from one instance resumes on another. Tickets live as long as the key that encrypts them.
 */
const SESSION_ID_CONTEXT = "fleet-registry-agent-port";
const SESSION_TIMEOUT_SECONDS = ROTATE_MS / 1000;
/** The metric counting the agent port's handshakes, labelled `resumed`. */
export const TLS_HANDSHAKES = "fleet_agent_tls_handshakes_total";
const OPEN_CONNECTIONS = "fleet_agent_connections";
const OPEN_CONNECTIONS_HELP = "Connections open on the agent port (TLS handshake done), from agents or a proxy in front.";

const KEEP_ALIVE_MIN_MS = 65_000;
const KEEP_ALIVE_MAX_MS = 10 * 60_000;

/**
 * How long the agent port keeps an idle connection open: longer than an agent's gap between two
 * heartbeats (the interval plus its 10 % jitter, plus slack for a slow answer), so each heartbeat
 * finds its connection open instead of paying a handshake. At least 65 s (past the usual 60 s of
 * load balancers, so they close first and never reuse a connection this side just closed), at
 * most 10 minutes (for longer intervals a resumed handshake costs less than holding the socket).
 * Node's headersTimeout and requestTimeout only run while a request arrives, not on idle sockets.
 */
export function agentKeepAliveMs(heartbeatIntervalSeconds: number): number {
  const gap = Math.ceil(heartbeatIntervalSeconds * 1000 * 1.25) + 15_000;
  return Math.min(KEEP_ALIVE_MAX_MS, Math.max(KEEP_ALIVE_MIN_MS, gap));
}

export function remoteAddress(req: http.IncomingMessage): string {
  return (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
}

/** The agent port's server, which follows the fleet's CAs (ca-rollover.ts) without a restart. */
export type AgentServer = https.Server & {
  /** Trusts the client certificates of `state.trusted`; a new serving CA gets a new server certificate. */
  applyCaState(state: CaState): void;
  /** Encrypts and resumes session tickets with this key (48 bytes) from now on. */
  applyTicketKey(key: Buffer): void;
};

/**
 * The certificate of a resumed session, if it may be an identity. OpenSSL checked it when the
 * session began (and `authorized` repeats that verdict), not now: the CA may have been retired
 * since, and the certificate may have expired (its dates are read per request). The certificate
 * itself is the one the session began with, carried in the ticket, which only holders of the
 * ticket key can make.
 */
function resumedCertificate(socket: TLSSocket, trusted: X509Certificate[]): X509Certificate | null {
  if (!socket.authorized && String(socket.authorizationError) !== "CERT_HAS_EXPIRED") return null;
  const peer = socket.getPeerCertificate();
  const cert = peer?.raw ? new X509Certificate(peer.raw) : null;
  return cert && Date.parse(cert.validFrom) <= Date.now() && chainsTo(cert, trusted) ? cert : null;
}

/** A connection's own client certificate as an identity; from a request after `expiresAt` (ms) on it counts as expired. */
type ConnectionIdentity = { fingerprint: string; serial: string; expiresAt: number };

/**
 * The identity a connection's own certificate gives, or null (then a proven proxy's header may
 * give one). It cannot change during the connection (renegotiation is refused on this port), so
 * it is worked out once per connection and trust list: getPeerCertificate builds a fresh object
 * on every call, which per request was a fifth of a heartbeat's main-thread time.
 */
function connectionIdentity(socket: TLSSocket, trusted: X509Certificate[]): ConnectionIdentity | null {
  const of = (fingerprint256: string, serial: string, expiresAt: number) => ({
    fingerprint: fingerprintOf(fingerprint256),
    serial,
    expiresAt,
  });
  if (socket.isSessionReused()) {
    const cert = resumedCertificate(socket, trusted);
    return cert ? of(cert.fingerprint256, cert.serialNumber, Date.parse(cert.validTo)) : null;
  }
  if (socket.authorized) {
    // OpenSSL's verdict covers the chain at the handshake; the end date is read again on every
    // request (createAgentServer), since a kept-alive connection outlives a certificate that
    // expires while it is open.
    const peer = socket.getPeerCertificate();
    return peer?.fingerprint256 && peer.serialNumber
      ? of(peer.fingerprint256, peer.serialNumber, Date.parse(peer.valid_to))
      : null;
  }
  if (String(socket.authorizationError) === "CERT_HAS_EXPIRED") {
    // (Node sets authorizationError to OpenSSL's code string, whatever its type declares.)
    // Expired but otherwise ours: checked again here rather than trusting OpenSSL's first error.
    const peer = socket.getPeerCertificate();
    const cert = peer?.raw ? new X509Certificate(peer.raw) : null;
    if (cert && chainsTo(cert, trusted)) return of(cert.fingerprint256, cert.serialNumber, -Infinity);
  }
  return null;
}

type ConnectionFacts = {
  identity: ConnectionIdentity | null;
  /**
   * The peer may vouch for agents' certificates: it is in TRUSTED_CLIENT_CERT_PROXY_CIDRS and
   * presented a client certificate pinned in CLIENT_CERT_PROXY_FINGERPRINTS (within its dates).
   */
  pinnedProxy: boolean;
  /** The peer is in TRUSTED_PROXY_CIDRS: its X-Forwarded-For is believed. */
  forwardsAddresses: boolean;
};

type ProxyTrust = { proxies: ProxyList; certProxies: { list: ProxyList; pins: Set<string> } | null };

/** What a connection is, worked out once: its peer's address and certificate do not change while it is open. */
function connectionFacts(socket: TLSSocket, address: string, trusted: X509Certificate[], trust: ProxyTrust): ConnectionFacts {
  const identity = connectionIdentity(socket, trusted);
  const forwardsAddresses = isTrustedProxy(trust.proxies, address);
  const { certProxies } = trust;
  if (identity || !certProxies?.pins.size || !isTrustedProxy(certProxies.list, address))
    return { identity, pinnedProxy: false, forwardsAddresses };
  // The TLS handshake proved the peer holds this certificate's key; the pin says it is the proxy's.
  const peer = socket.getPeerCertificate();
  const now = Date.now();
  const pinnedProxy =
    !!peer?.fingerprint256 &&
    certProxies.pins.has(fingerprintOf(peer.fingerprint256)) &&
    Date.parse(peer.valid_from) <= now &&
    now <= Date.parse(peer.valid_to);
  return { identity, pinnedProxy, forwardsAddresses };
}

/**
 * The agent port: HTTPS whose client certificates are requested but optional (registration has
 * none yet). A certificate that chains to a fleet CA and is within its validity becomes the
 * request's identity; one that chains but has expired is marked so (only rotate accepts it,
 * within the renewal grace); everything about which cluster it is, and whether it is revoked,
 * is decided by the app (agent-identity.ts). Behind a TLS-terminating proxy the agent's
 * certificate arrives in X-Forwarded-Client-Cert, believed only from a proxy in
 * TRUSTED_CLIENT_CERT_PROXY_CIDRS whose own connection presents a pinned client certificate.
 * Only the protocol's paths are served; everything else is 404.
 */
export function createAgentServer(state: CaState, options: AgentServerOptions): AgentServer {
  const { hostnames, serveProtocol = dispatchNode } = options;
  let { ticketKey } = options;
  const trust: ProxyTrust = {
    proxies: trustedProxies(options.proxyCidrs),
    certProxies: options.clientCertProxies
      ? { list: trustedProxies(options.clientCertProxies.cidrs), pins: new Set(options.clientCertProxies.fingerprints) }
      : null,
  };
  // What each connection is, worked out once per connection and trust list.
  const connections = new WeakMap<TLSSocket, { version: string } & ConnectionFacts>();
  let servingFingerprint = state.serving.fingerprint;
  let identity = issueServerCertificate(state.serving, hostnames);
  let version = state.version;
  let trusted = state.trusted.map((ca) => new X509Certificate(ca.certPem));
  let vouchedFor = new ForwardedIdentities(trusted);
  const contextOptions = (s: CaState) => ({
    key: identity.keyPem,
    cert: identity.certPem,
    ca: s.trusted.map((ca) => ca.certPem),
    ...AGENT_TLS_POLICY,
    // setSecureContext builds a new context from these: the current ticket key must be among them.
    ticketKeys: ticketKey,
    sessionIdContext: SESSION_ID_CONTEXT,
    sessionTimeout: SESSION_TIMEOUT_SECONDS,
  });

  const serverOptions = {
    ...contextOptions(state),
    requestCert: true,
    rejectUnauthorized: false,
    IncomingMessage: BoundedRequest,
  };
  const server = https.createServer(serverOptions, (req, res) => {
    // Every body is bounded before it is read, on every path (lib/domain/body-limits.ts).
    if (!admitBody(req, res)) return;
    // The console and the admin API are not served here (docs/protocol.md): this port faces every cluster.
    if (!isProtocolPath(req.url ?? "/")) return reply(res, new ApiError("not_found", NOT_SERVED_HERE));
    const forwarded = req.headers[FORWARDED_CLIENT_CERT];
    stripIdentityHeaders(req);
    const address = remoteAddress(req);
    req.headers[IDENTITY_HEADERS.remoteAddress] = address;
    const socket = req.socket as TLSSocket;
    let seen = connections.get(socket);
    if (seen?.version !== version) {
      connections.set(socket, (seen = { version, ...connectionFacts(socket, address, trusted, trust) }));
    }
    if (!seen.forwardsAddresses) dropForwardingHeaders(req);
    req.headers[IDENTITY_HEADERS.agentPort] = "1";
    if (seen.identity) {
      const own = seen.identity;
      setIdentity(req, own.fingerprint, own.serial, Date.now() > own.expiresAt);
    } else if (seen.pinnedProxy && typeof forwarded === "string") {
      // A TLS-terminating proxy that proved itself (address and pinned certificate) vouches for
      // the agent's certificate, which it checked in its own handshake with the agent.
      let fwd;
      try {
        fwd = vouchedFor.identity(forwarded);
      } catch (err) {
        if (!(err instanceof ForwardedCertError)) throw err;
        return reply(res, new ApiError("invalid_request", `${err.message} Forward only the client's own certificate.`));
      }
      if (fwd) setIdentity(req, fingerprintOf(fwd.fingerprint256), fwd.serial, fwd.expired);
    }
    serveProtocol(req, res);
  }) as AgentServer;

  refuseBeforeContinue(server);
  addToGauge(OPEN_CONNECTIONS, OPEN_CONNECTIONS_HELP, 0); // present from the start, at 0
  server.on("secureConnection", (socket: TLSSocket) => {
    // Agents never renegotiate; refusing it keeps a connection's certificate the one of its handshake.
    socket.disableRenegotiation();
    // Whether resumption works (behind a load balancer too) shows in /api/metrics.
    incCounter(TLS_HANDSHAKES, "TLS handshakes on the agent port, by whether a session was resumed.", {
      resumed: String(socket.isSessionReused()),
    });
    addToGauge(OPEN_CONNECTIONS, OPEN_CONNECTIONS_HELP, 1);
    socket.once("close", () => addToGauge(OPEN_CONNECTIONS, OPEN_CONNECTIONS_HELP, -1));
  });

  server.applyCaState = (next) => {
    if (next.version === version && next.serving.fingerprint === servingFingerprint) return;
    if (next.serving.fingerprint !== servingFingerprint) {
      identity = issueServerCertificate(next.serving, hostnames);
      servingFingerprint = next.serving.fingerprint;
    }
    version = next.version;
    trusted = next.trusted.map((ca) => new X509Certificate(ca.certPem));
    vouchedFor = new ForwardedIdentities(trusted);
    server.setSecureContext(contextOptions(next));
    // Connections authenticated under the previous CAs end at their next idle moment: agents
    // reconnect and meet the new server certificate and trust list.
    server.closeIdleConnections();
  };

  server.applyTicketKey = (key) => {
    if (key.equals(ticketKey)) return;
    ticketKey = key;
    server.setTicketKeys(key);
  };
  return server;
}
