// The agent port's TLS, engine-free: the real createAgentServer on loopback, probed with the real
// `openssl s_client` (Mozilla "intermediate": TLS 1.2+, forward-secret AEAD suites only), and its
// CA following a rollover without a restart (applyCaState: trusted client CAs, server certificate);
// TLS 1.3 session resumption with client certificates across two servers sharing a ticket key.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createPublicKey, randomBytes, X509Certificate } from "node:crypto";
import type http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { after, before, test } from "node:test";
import { createAgentServer, type AgentServer } from "@/lib/server/agent-port/agent-server";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import type { ClientCertProxies } from "@/lib/env";
import type { CaState } from "@/lib/server/pki/current-ca";
import { issueClientCertificate } from "@/lib/server/pki/client-certificate";
import { loadOrCreateFleetCa, type FleetCa } from "@/lib/server/pki/fleet-ca";
import { createTlsAgent, httpRequest } from "@/lib/agent/http";
import { makeKey } from "../../helpers/csr";
import { caStateOf, memoryStore } from "../../helpers/ca-state";
import { until } from "../../helpers/until";

const DAY = 24 * 60 * 60 * 1000;
/** A protocol path: the only kind the agent port serves (the probes' echo answers it). */
const PROBE = "/api/agent/v1/heartbeat";

const stateOf = caStateOf;

let oldCa: FleetCa;
let newCa: FleetCa;
let server: AgentServer;
let port: number;

before(async () => {
  [oldCa, newCa] = await Promise.all([loadOrCreateFleetCa(memoryStore()), loadOrCreateFleetCa(memoryStore())]);
  // Echoes the identity the TLS layer derived, so tests see what the app would.
  const echo = (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        fingerprint: req.headers[IDENTITY_HEADERS.fingerprint] ?? null,
        expired: req.headers[IDENTITY_HEADERS.expired] ?? null,
      }),
    );
  };
  server = createAgentServer(stateOf(oldCa), {
    hostnames: ["127.0.0.1"],
    proxyCidrs: [],
    clientCertProxies: null,
    ticketKey: randomBytes(48),
    serveProtocol: echo,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function sClient(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("openssl", ["s_client", "-connect", `127.0.0.1:${port}`, "-servername", "localhost", ...args]);
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    child.stdin.end();
    child.on("close", (code) => resolve({ code, output }));
  });
}

const negotiated = (output: string) => /Cipher is (\S+)/.exec(output)?.[1] ?? null;

test("TLS 1.1 is refused by the server (the client offers it at security level 0)", async () => {
  const r = await sClient(["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"]);
  assert.notEqual(r.code, 0, r.output);
  assert.ok(!negotiated(r.output) || negotiated(r.output) === "(NONE)", r.output);
  assert.match(r.output, /alert protocol version|unsupported protocol/i);
});

test("a CBC suite (ECDHE-RSA-AES128-SHA over TLS 1.2) is refused", async () => {
  const r = await sClient(["-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA"]);
  assert.notEqual(r.code, 0, r.output);
  assert.match(r.output, /handshake failure|no shared cipher/i);
});

test("static RSA key exchange (AES128-GCM-SHA256, no forward secrecy) is refused", async () => {
  const r = await sClient(["-tls1_2", "-cipher", "AES128-GCM-SHA256"]);
  assert.notEqual(r.code, 0, r.output);
});

test("TLS 1.2 with ECDHE-ECDSA-AES128-GCM-SHA256 is accepted (the server key is ECDSA P-256)", async () => {
  const r = await sClient(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"]);
  assert.equal(r.code, 0, r.output);
  assert.equal(negotiated(r.output), "ECDHE-ECDSA-AES128-GCM-SHA256");
  assert.match(r.output, /Protocol\s*: TLSv1\.2/);
  assert.match(r.output, /Server public key is 256 bit/);
});

test("TLS 1.3 is accepted", async () => {
  const r = await sClient(["-tls1_3"]);
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /New, TLSv1\.3, Cipher is TLS_(AES_\d+_GCM_SHA\d+|CHACHA20_POLY1305_SHA256)/);
});

function get(options: { ca: string; cert?: string; key?: string }): Promise<{ body: Record<string, unknown>; issuer: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: "127.0.0.1", port, path: PROBE, method: "GET", agent: false, ...options },
      (res: http.IncomingMessage) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => {
          const peer = (res.socket as TLSSocket | null)?.getPeerCertificate?.();
          resolve({ body: JSON.parse(text) as Record<string, unknown>, issuer: String(peer?.issuer?.OU ?? "") });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

function clientCert(ca: FleetCa, opts: { now?: Date; validityDays?: number } = {}) {
  const { privateKeyPem, publicKeyPem } = makeKey();
  const cert = issueClientCertificate(ca, {
    publicKeyPem: createPublicKey(publicKeyPem).export({ type: "spki", format: "pem" }).toString(),
    clusterId: "cl_tls0000000000001",
    validityDays: opts.validityDays ?? 30,
    now: opts.now,
  });
  return { cert: cert.pem, key: privateKeyPem, fingerprint: cert.fingerprint };
}

const ou = (ca: FleetCa) => /OU=([^,]+)/.exec(ca.subject)?.[1] ?? "";

test("an expired certificate from the fleet CA is passed on marked expired; a foreign one is not", async () => {
  const expired = clientCert(oldCa, { now: new Date(Date.now() - 3 * DAY), validityDays: 1 });
  const r = await get({ ca: oldCa.certPem, cert: expired.cert, key: expired.key });
  assert.deepEqual(r.body, { fingerprint: expired.fingerprint, expired: "1" });
  const foreign = clientCert(newCa, { now: new Date(Date.now() - 3 * DAY), validityDays: 1 });
  assert.deepEqual((await get({ ca: oldCa.certPem, cert: foreign.cert, key: foreign.key })).body, {
    fingerprint: null,
    expired: null,
  });
});

test("applyCaState: during a rollover both CAs' clients are accepted; after retirement the server certificate comes from the new CA", async () => {
  const fromNew = clientCert(newCa);
  const fromOld = clientCert(oldCa);
  assert.equal((await get({ ca: oldCa.certPem, ...fromNew })).body.fingerprint, null, "not trusted before the rollover");

  server.applyCaState(stateOf(oldCa, newCa));
  const during = await get({ ca: oldCa.certPem, ...fromNew });
  assert.equal(during.body.fingerprint, fromNew.fingerprint);
  assert.equal(during.issuer, ou(oldCa), "the server certificate still comes from the old CA");
  assert.equal((await get({ ca: oldCa.certPem, ...fromOld })).body.fingerprint, fromOld.fingerprint);

  server.applyCaState(stateOf(newCa));
  const bundle = oldCa.certPem + newCa.certPem;
  const afterRetire = await get({ ca: bundle, ...fromNew });
  assert.equal(afterRetire.issuer, ou(newCa), "the server certificate now comes from the new CA");
  assert.equal(afterRetire.body.fingerprint, fromNew.fingerprint);
  assert.equal((await get({ ca: bundle, ...fromOld })).body.fingerprint, null, "the retired CA's clients are no longer trusted");
  assert.ok(new X509Certificate(newCa.certPem).ca);
});

// ---------------------------------------------------------------------------------------------
// Session resumption (tls-ticket-keys.ts). Raw tls.connect so the test holds the session itself.

type Exchange = { status: number; body: Record<string, unknown>; reused: boolean; session: Buffer | null };

/** One request on a fresh TLS connection, resuming `session` if given; returns the newest ticket. */
function exchange(
  p: number,
  options: { ca: string; cert?: string; key?: string; session?: Buffer | null },
  headers: Record<string, string> = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    let session: Buffer | null = null;
    let text = "";
    let reused = false;
    const socket = tlsConnect({ host: "127.0.0.1", port: p, ...options, session: options.session ?? undefined }, () => {
      reused = socket.isSessionReused(); // read while connected: null once closed
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.end(`GET ${PROBE} HTTP/1.0\r\nhost: 127.0.0.1\r\n${extra.join("")}\r\n`); // 1.0: no chunking to undo
    });
    socket.on("session", (s: Buffer) => (session = s));
    socket.on("data", (c: Buffer) => (text += c.toString("utf8")));
    socket.on("error", reject);
    socket.on("close", () => {
      const body = text.slice(text.indexOf("\r\n\r\n") + 4);
      try {
        const status = Number(/^HTTP\/1\.\d (\d{3})/.exec(text)?.[1] ?? 0);
        resolve({ status, body: JSON.parse(body) as Record<string, unknown>, reused, session });
      } catch {
        reject(new Error(`not a JSON answer: ${text}`));
      }
    });
  });
}

type PeerTrust = { proxyCidrs?: string[]; clientCertProxies?: ClientCertProxies | null };

async function startPeer(state: CaState, key: Buffer, trust: PeerTrust = {}): Promise<{ server: AgentServer; port: number }> {
  const echo = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const resumed = String((req.socket as TLSSocket).isSessionReused());
    res.writeHead(200, { "content-type": "application/json", "x-test-resumed": resumed });
    res.end(
      JSON.stringify({
        fingerprint: req.headers[IDENTITY_HEADERS.fingerprint] ?? null,
        expired: req.headers[IDENTITY_HEADERS.expired] ?? null,
      }),
    );
  };
  const s = createAgentServer(state, {
    hostnames: ["127.0.0.1"],
    proxyCidrs: trust.proxyCidrs ?? [],
    clientCertProxies: trust.clientCertProxies ?? null,
    ticketKey: key,
    serveProtocol: echo,
  });
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return { server: s, port: (s.address() as AddressInfo).port };
}

const closeServer = (s: AgentServer) => new Promise<void>((resolve) => s.close(() => resolve()));

test("TLS 1.3 resumption with a client certificate: a session from one server resumes on another with the same ticket key, and the identity is the certificate's", async () => {
  const key = randomBytes(48);
  const one = await startPeer(stateOf(oldCa), key);
  const two = await startPeer(stateOf(oldCa), key);
  const other = await startPeer(stateOf(oldCa), randomBytes(48));
  try {
    const client = clientCert(oldCa);
    const first = await exchange(one.port, { ca: oldCa.certPem, ...client });
    assert.equal(first.reused, false);
    assert.equal(first.body.fingerprint, client.fingerprint);
    assert.ok(first.session, "the server sent a session ticket");

    const resumed = await exchange(two.port, { ca: oldCa.certPem, ...client, session: first.session });
    assert.equal(resumed.reused, true, "the second instance resumed the first one's session");
    assert.deepEqual(resumed.body, { fingerprint: client.fingerprint, expired: null }, "the identity survives resumption");

    // Without the key (another fleet, or a rotated key): a full handshake, the identity as usual.
    const full = await exchange(other.port, { ca: oldCa.certPem, ...client, session: first.session });
    assert.equal(full.reused, false);
    assert.equal(full.body.fingerprint, client.fingerprint);

    // A session begun without a certificate resumes without an identity.
    const anonymous = await exchange(one.port, { ca: oldCa.certPem });
    const anonymousAgain = await exchange(two.port, { ca: oldCa.certPem, session: anonymous.session });
    assert.equal(anonymousAgain.reused, true);
    assert.equal(anonymousAgain.body.fingerprint, null);
  } finally {
    await Promise.all([one, two, other].map((p) => closeServer(p.server)));
  }
});

test("a resumed session is checked now: a certificate expired since is marked expired, a retired CA's is no identity, a rotated key means a full handshake", async () => {
  const peer = await startPeer(stateOf(oldCa, newCa), randomBytes(48));
  try {
    // Valid for about 2 more seconds (the test waits that long once; bounded at a few seconds).
    const shortLived = clientCert(oldCa, { now: new Date(Date.now() - DAY + 2_000), validityDays: 1 });
    const first = await exchange(peer.port, { ca: oldCa.certPem, ...shortLived });
    assert.deepEqual(first.body, { fingerprint: shortLived.fingerprint, expired: null });
    await new Promise((r) => setTimeout(r, 2_500));
    const later = await exchange(peer.port, { ca: oldCa.certPem, ...shortLived, session: first.session });
    assert.equal(later.reused, true);
    assert.deepEqual(later.body, { fingerprint: shortLived.fingerprint, expired: "1" }, "expired since the session began");

    const fromOld = clientCert(oldCa);
    const before = await exchange(peer.port, { ca: oldCa.certPem, ...fromOld });
    assert.equal(before.body.fingerprint, fromOld.fingerprint);
    peer.server.applyCaState(stateOf(newCa)); // the old CA retired: its client certificates are no longer trusted
    const bundle = oldCa.certPem + newCa.certPem;
    const resumed = await exchange(peer.port, { ca: bundle, ...fromOld, session: before.session });
    assert.equal(resumed.reused, true, "the ticket key did not change with the CA");
    assert.equal(resumed.body.fingerprint, null, "a retired CA's certificate is not an identity, resumed or not");

    const fromNew = clientCert(newCa);
    const s1 = await exchange(peer.port, { ca: bundle, ...fromNew });
    peer.server.applyTicketKey(randomBytes(48));
    const s2 = await exchange(peer.port, { ca: bundle, ...fromNew, session: s1.session });
    assert.equal(s2.reused, false, "tickets under the previous key are not honoured");
    assert.equal(s2.body.fingerprint, fromNew.fingerprint);
    const s3 = await exchange(peer.port, { ca: bundle, ...fromNew, session: s2.session });
    assert.equal(s3.reused, true, "tickets under the new key are");
  } finally {
    await closeServer(peer.server);
  }
});

test("a kept-alive connection: a certificate that expires while it is open is marked expired from the next request on", async () => {
  const peer = await startPeer(stateOf(oldCa), randomBytes(48));
  const shortLived = clientCert(oldCa, { now: new Date(Date.now() - DAY + 2_000), validityDays: 1 });
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 1,
    ca: oldCa.certPem,
    cert: shortLived.cert,
    key: shortLived.key,
  });
  const onSameSocket = () =>
    new Promise<{ body: Record<string, unknown>; port: number | undefined }>((resolve, reject) => {
      const req = https.request({ host: "127.0.0.1", port: peer.port, path: PROBE, method: "GET", agent }, (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ body: JSON.parse(text) as Record<string, unknown>, port: res.socket?.localPort }));
      });
      req.on("error", reject);
      req.end();
    });
  try {
    const first = await onSameSocket();
    assert.deepEqual(first.body, { fingerprint: shortLived.fingerprint, expired: null });
    await new Promise((r) => setTimeout(r, 2_500));
    const later = await onSameSocket();
    assert.equal(later.port, first.port, "the same connection, no new handshake");
    assert.deepEqual(later.body, { fingerprint: shortLived.fingerprint, expired: "1" }, "expired since the handshake");
  } finally {
    agent.destroy();
    await closeServer(peer.server);
  }
});

test("the reference agent's connections resume the last TLS session: a reconnect after the server closed an idle connection skips the full handshake", async () => {
  const peer = await startPeer(stateOf(oldCa), randomBytes(48));
  const client = clientCert(oldCa);
  const agent = createTlsAgent(oldCa.certPem, { keyPem: client.key, certPem: client.cert });
  try {
    const base = new URL(`https://127.0.0.1:${peer.port}`);
    const call = () => httpRequest(base, PROBE, { method: "GET", agent, timeoutMs: 5_000 });
    const first = await call();
    assert.equal(first.headers["x-test-resumed"], "false");
    assert.equal((JSON.parse(first.text) as { fingerprint: string }).fingerprint, client.fingerprint);
    assert.equal((await call()).headers["x-test-resumed"], "false", "the same keep-alive connection");

    peer.server.closeIdleConnections(); // as keepAliveTimeout, a restart or a load balancer would
    await until("the agent to see its idle connection closed", async () => Object.keys(agent.freeSockets).length === 0, 2_000);
    const again = await call();
    assert.equal(again.headers["x-test-resumed"], "true", "a new connection, resumed");
    assert.equal((JSON.parse(again.text) as { fingerprint: string }).fingerprint, client.fingerprint);
  } finally {
    agent.destroy();
    await closeServer(peer.server);
  }
});

// ---------------------------------------------------------------------------------------------
// A TLS-terminating proxy in front of the port forwards the agent's certificate in
// X-Forwarded-Client-Cert. The certificate is public, so the header is believed only from a proxy
// that proves itself: its address in TRUSTED_CLIENT_CERT_PROXY_CIDRS and its own pinned certificate.

/** The proxy's own client certificate: from a CA of its own, not the fleet's. */
let proxyCert: ReturnType<typeof clientCert>;
before(async () => {
  proxyCert = clientCert(await loadOrCreateFleetCa(memoryStore()));
});
const xfccOf = (pem: string) => ({ "x-forwarded-client-cert": `By=spiffe://proxy;Cert="${encodeURIComponent(pem)}"` });
const provenProxy = (): PeerTrust => ({ clientCertProxies: { cidrs: ["127.0.0.1/32"], fingerprints: [proxyCert.fingerprint] } });

test("a forwarded certificate is no identity from a peer trusted only for X-Forwarded-For (TRUSTED_PROXY_CIDRS)", async () => {
  const peer = await startPeer(stateOf(oldCa), randomBytes(48), { proxyCidrs: ["127.0.0.1/32"] });
  try {
    const victim = clientCert(oldCa);
    const r = await exchange(peer.port, { ca: oldCa.certPem }, xfccOf(victim.cert));
    assert.equal(r.status, 200);
    assert.equal(r.body.fingerprint, null, "the header alone made the caller a cluster");
  } finally {
    await closeServer(peer.server);
  }
});

test("a forwarded certificate counts only from a client-certificate proxy that presents its pinned certificate", async () => {
  const peer = await startPeer(stateOf(oldCa), randomBytes(48), provenProxy());
  try {
    const agentCert = clientCert(oldCa);
    const stranger = clientCert(await loadOrCreateFleetCa(memoryStore()));
    const noCert = await exchange(peer.port, { ca: oldCa.certPem }, xfccOf(agentCert.cert));
    assert.equal(noCert.body.fingerprint, null, "no proxy certificate");
    const wrongCert = await exchange(
      peer.port,
      { ca: oldCa.certPem, cert: stranger.cert, key: stranger.key },
      xfccOf(agentCert.cert),
    );
    assert.equal(wrongCert.body.fingerprint, null, "a certificate that is not pinned");
    const proven = await exchange(
      peer.port,
      { ca: oldCa.certPem, cert: proxyCert.cert, key: proxyCert.key },
      xfccOf(agentCert.cert),
    );
    assert.equal(proven.body.fingerprint, agentCert.fingerprint);
  } finally {
    await closeServer(peer.server);
  }
});

test("a forwarded header naming more than one certificate is refused 400, whichever comes first", async () => {
  const peer = await startPeer(stateOf(oldCa), randomBytes(48), provenProxy());
  try {
    const mine = clientCert(oldCa);
    const theirs = clientCert(oldCa);
    const proxy = { ca: oldCa.certPem, cert: proxyCert.cert, key: proxyCert.key };
    const appended = `Cert="${encodeURIComponent(theirs.cert)}",By=spiffe://proxy;Cert="${encodeURIComponent(mine.cert)}"`;
    const twoKeys = `Cert="${encodeURIComponent(theirs.cert)}";Cert="${encodeURIComponent(mine.cert)}"`;
    const twoPems = encodeURIComponent(theirs.cert + mine.cert);
    for (const value of [appended, twoKeys, twoPems]) {
      const r = await exchange(peer.port, proxy, { "x-forwarded-client-cert": value });
      assert.equal(r.status, 400, value.slice(0, 40));
      assert.equal(r.body.error, "invalid_request");
      assert.equal(r.body.fingerprint, undefined, "never reached the protocol");
    }
  } finally {
    await closeServer(peer.server);
  }
});

test("a proven proxy's resumed connection still forwards the agent's certificate", async () => {
  const peer = await startPeer(stateOf(oldCa), randomBytes(48), provenProxy());
  try {
    const agentCert = clientCert(oldCa);
    const proxy = { ca: oldCa.certPem, cert: proxyCert.cert, key: proxyCert.key };
    const first = await exchange(peer.port, proxy, xfccOf(agentCert.cert));
    assert.equal(first.body.fingerprint, agentCert.fingerprint);
    const resumed = await exchange(peer.port, { ...proxy, session: first.session }, xfccOf(agentCert.cert));
    assert.equal(resumed.reused, true);
    assert.equal(resumed.body.fingerprint, agentCert.fingerprint);
  } finally {
    await closeServer(peer.server);
  }
});

test("the agent port serves the protocol's paths only: anything else is 404 JSON", async () => {
  const peer = await startPeer(stateOf(oldCa), randomBytes(48));
  const fetchPath = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request({ host: "127.0.0.1", port: peer.port, path, agent: false, ca: oldCa.certPem }, (m) => {
        let text = "";
        m.on("data", (c) => (text += c));
        m.on("end", () => resolve({ status: m.statusCode ?? 0, body: text }));
      });
      req.on("error", reject);
      req.end();
    });
  try {
    for (const path of ["/", "/api/v1/clusters", "/api/auth/signin", "/clusters", "/api/agent/v1/../../v1/fleet"]) {
      const r = await fetchPath(path);
      assert.equal(r.status, 404, path);
      assert.equal((JSON.parse(r.body) as { error: string }).error, "not_found", path);
    }
    assert.equal((await fetchPath(PROBE)).status, 200, "the protocol itself");
  } finally {
    await closeServer(peer.server);
  }
});
