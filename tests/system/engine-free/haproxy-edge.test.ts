// TLS at the edge: Debian's HAProxy, run from deploy/haproxy/haproxy.cfg with the files
// `npm run edge:certificates` writes, in front of the built server's agent port, all on loopback.
// Agents speak only to HAProxy: registration, heartbeats, a revoked certificate, rotation (and
// rotate's renewal grace for an expired certificate), a forged X-Forwarded-Client-Cert, and a CA
// rollover whose bundle reaches HAProxy through its runtime API (its server certificate, by a reload). The edge
// does not depend on the database engine: run once (engine-free).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { createDb, type Db } from "@/lib/server/db/client";
import { edgeBackendIdentity } from "@/lib/server/pki/edge-certificates";
import { call, heartbeatBody, mintToken, registerCluster, registrationBody, type ClientCert } from "../../helpers/agent-client";
import { makeCsr, selfSignedClientCert } from "../../helpers/csr";
import { expiredCertificate, storedFleetCa } from "../../helpers/expired-certificate";
import { startFleetServer, TEST_KEK, type FleetServer } from "../../helpers/fleet-server";
import { startHaproxyEdge, type HaproxyEdge } from "../../helpers/haproxy-edge";
import { presentedCertificate } from "../../helpers/tls-session";
import { until } from "../../helpers/until";

let server: FleetServer;
let edge: HaproxyEdge;
let db: Db;
const certDir = mkdtempSync(path.join(tmpdir(), "fleet-edge-"));

/** `npm run edge:certificates -- --out certDir ...args`, as an operator runs it; its output. */
async function edgeCertificates(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "./runtime/register-hooks.mjs", "--import", "tsx", "scripts/edge-certificates.ts", "--out", certDir, ...args],
    { env: { ...process.env, DATABASE_URL: server.db.url, FLEET_CA_KEK: TEST_KEK, FLEET_CA_KEK_FILE: "" } },
  );
  return stdout;
}

before(async () => {
  // HAProxy's own client certificate from an earlier run of the script (which keeps it), so the
  // server starts once, with it pinned. HAProxy connects from 127.0.0.1: trusted for the agent's
  // address and, with its pin, for the agent's certificate.
  const proxy = edgeBackendIdentity();
  writeFileSync(path.join(certDir, "backend-client.pem"), proxy.pem, { mode: 0o600 });
  server = await startFleetServer({
    TRUSTED_PROXY_CIDRS: "127.0.0.1/32",
    TRUSTED_CLIENT_CERT_PROXY_CIDRS: "127.0.0.1/32",
    CLIENT_CERT_PROXY_FINGERPRINTS: proxy.fingerprint,
  });
  db = createDb(server.db.database);
  const printed = await edgeCertificates();
  assert.match(printed, new RegExp(`CLIENT_CERT_PROXY_FINGERPRINTS=${proxy.fingerprint} \\(unchanged`));
  edge = await startHaproxyEdge(certDir, server.agentPort);
});
after(async () => {
  await edge?.stop();
  await db?.$disconnect();
  await server?.stop();
  rmSync(certDir, { recursive: true, force: true });
});

/** An agent's request to HAProxy, trusting `ca` (the fleet's bundle by default). */
const viaEdge = (
  method: string,
  p: string,
  body?: unknown,
  opts: { client?: ClientCert; headers?: Record<string, string>; ca?: string } = {},
) => call(`https://127.0.0.1:${edge.port}${p}`, method, { ca: server.caPem, ...opts, body });
const heartbeat = (client?: ClientCert, opts: { headers?: Record<string, string>; ca?: string; pods?: number } = {}) => {
  const { pods, ...rest } = opts;
  return viaEdge("POST", "/api/agent/v1/heartbeat", heartbeatBody(pods ? { workloads: { pods, namespaces: 14 } } : {}), {
    client,
    ...rest,
  });
};
/** The agents' server as HAProxy's `edge` presents it: registration through HAProxy. */
const edgeServer = { api: (...a: Parameters<FleetServer["api"]>) => server.api(...a), agent: viaEdge };
const der64 = (pem: string) => new X509Certificate(pem).raw.toString("base64");

async function metric(sample: string): Promise<number> {
  const text = String((await server.api("GET", "/api/metrics", undefined, { cookie: null })).body);
  const line = text.split("\n").find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

test("through HAProxy: registration, heartbeats and rotation, over few connections to the agent port", async () => {
  const handshakes = await metric('fleet_agent_tls_handshakes_total{resumed="false"}');
  const { clusterId, client } = await registerCluster(edgeServer, "edge-agent");
  for (let i = 0; i < 10; i++) {
    const hb = await heartbeat(client); // each on a new connection to HAProxy
    assert.equal(hb.status, 200, JSON.stringify(hb.body));
  }
  const { csr, key } = makeCsr();
  const rotated = await viaEdge("POST", "/api/agent/v1/rotate", { csr }, { client });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  const renewed = { cert: rotated.body.certificate, key };
  assert.equal((await heartbeat(renewed)).status, 200);
  // Heartbeats reach the database in the writer's next flush.
  const cluster = await until("the heartbeats through HAProxy to be written", async () => {
    const c = (await server.api("GET", `/api/v1/clusters/${clusterId}`)).body;
    return c.lastHeartbeatAt ? c : null;
  });
  assert.equal(cluster.name, "edge-agent");
  // http-reuse: thirteen agent connections cost the agent port at most a few handshakes.
  const more = (await metric('fleet_agent_tls_handshakes_total{resumed="false"}')) - handshakes;
  assert.ok(more <= 3, `${more} full handshakes on the agent port for 13 agent connections`);

  // The agent's address is HAProxy's peer (X-Forwarded-For, believed from HAProxy), never a claim.
  const t = await mintToken(server, { name: "edge-address", maxClusters: 1 });
  const reg = await viaEdge("POST", "/api/agent/v1/register", registrationBody("edge-address").body, {
    headers: { authorization: `Bearer ${t.token}`, "x-forwarded-for": "203.0.113.9", forwarded: "for=203.0.113.9" },
  });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const attempts = await server.api("GET", `/api/v1/registration-attempts?tokenId=${t.id}&result=ok`);
  assert.deepEqual(
    attempts.body.items.map((a: { sourceAddress: string }) => a.sourceAddress),
    ["127.0.0.1"],
  );
});

test("a revoked certificate is refused through HAProxy: revocation stays the server's decision", async () => {
  const { clusterId, client } = await registerCluster(edgeServer, "edge-revoked");
  assert.equal((await heartbeat(client)).status, 200);
  const revoked = await server.api("POST", `/api/v1/clusters/${clusterId}/certificate/revoke`, { reason: "key leaked" });
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
  const refused = await heartbeat(client);
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.equal(refused.body.error, "certificate_revoked");
});

test("an expired certificate of the fleet reaches rotate's renewal grace through HAProxy; a foreign one ends the handshake", async () => {
  const { clusterId, client } = await registerCluster(edgeServer, "edge-expired");
  const expired = await expiredCertificate(db, await storedFleetCa(db), clusterId, client.key, 1);
  const hb = await heartbeat(expired);
  assert.equal(hb.status, 401, JSON.stringify(hb.body));
  assert.match(hb.body.message, /expired/);
  const { csr, key } = makeCsr();
  const renewed = await viaEdge("POST", "/api/agent/v1/rotate", { csr }, { client: expired });
  assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
  assert.equal((await heartbeat({ cert: renewed.body.certificate, key })).status, 200);

  const stranger = selfSignedClientCert("not-of-this-fleet");
  await assert.rejects(heartbeat({ cert: stranger.cert, key: stranger.key }), "HAProxy ended the handshake");
});

test("a client's own X-Forwarded-Client-Cert gains nothing: HAProxy replaces it with the certificate it verified", async () => {
  const victim = await registerCluster(edgeServer, "edge-victim");
  const forged = (pem: string): Record<string, string>[] => [
    { "x-forwarded-client-cert": der64(pem) },
    { "x-forwarded-client-cert": `By=spiffe://edge;Cert="${encodeURIComponent(pem)}"` },
    { "x-forwarded-client-cert": encodeURIComponent(pem), "x-ssl-client-cert": encodeURIComponent(pem) },
  ];
  for (const headers of forged(victim.client.cert)) {
    const anonymous = await heartbeat(undefined, { headers });
    assert.equal(anonymous.status, 401, JSON.stringify(anonymous.body));
    assert.equal(anonymous.body.error, "client_certificate_required");
    const takeover = await viaEdge("POST", "/api/agent/v1/rotate", { csr: makeCsr().csr }, { headers });
    assert.equal(takeover.status, 401, JSON.stringify(takeover.body));
  }
  // With a certificate of its own, a client is itself whatever it claims: a revoked cluster's
  // forged header over a healthy one's certificate is the healthy one (200), not the revoked (403).
  const revoked = await registerCluster(edgeServer, "edge-forger-revoked");
  await server.api("POST", `/api/v1/clusters/${revoked.clusterId}/certificate/revoke`, { reason: "test" });
  let victimLastSent = 0;
  let pods = 200;
  for (const headers of forged(revoked.client.cert)) {
    victimLastSent = Date.now();
    // Facts that change each time: the writer skips a repeat of unchanged facts within 2 s, so the
    // last one is sure to be written.
    assert.equal((await heartbeat(victim.client, { headers, pods: pods++ })).status, 200);
  }
  // And the victim's certificate in a forger's header leaves the victim untouched. Heartbeats reach
  // the database in the writer's flushes: the victim's own above first, the forger's after.
  const lastHeartbeatAt = async (clusterId: string) =>
    (await server.api("GET", `/api/v1/clusters/${clusterId}`)).body.lastHeartbeatAt as string | null;
  const before = await until("the victim's own heartbeats to be written", async () => {
    const at = await lastHeartbeatAt(victim.clusterId);
    return at && Date.parse(at) >= victimLastSent ? at : null;
  });
  const forger = await registerCluster(edgeServer, "edge-forger");
  for (const headers of forged(victim.client.cert)) assert.equal((await heartbeat(forger.client, { headers })).status, 200);
  await until("the forger's heartbeats to be written", () => lastHeartbeatAt(forger.clusterId));
  assert.equal(await lastHeartbeatAt(victim.clusterId), before);
});

test("a CA rollover: the runtime API gives HAProxy both CAs, agents of either heartbeat; a reload serves the new CA's certificate", async () => {
  const old = await registerCluster(edgeServer, "edge-rollover-old");
  const started = await server.api("POST", "/api/v1/ca/rollover", {});
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const bundle = String((await server.agent("GET", "/api/agent/v1/ca")).body);
  const newCa = new X509Certificate(bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)![1]!);

  // A registration now gets a certificate from the incoming CA, which HAProxy does not know yet.
  const t = await mintToken(server, { name: "edge-rollover-new", maxClusters: 1 });
  const { body, key } = registrationBody("edge-rollover-new");
  const reg = await viaEdge("POST", "/api/agent/v1/register", body, { headers: { authorization: `Bearer ${t.token}` } });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const onNew = { cert: reg.body.certificate as string, key };
  assert.ok(new X509Certificate(onNew.cert).checkIssued(newCa));
  await assert.rejects(heartbeat(onNew, { ca: bundle }), "HAProxy still trusts only the old CA");

  // The operator's step: write the files again and hand the bundle to the running HAProxy.
  const printed = await edgeCertificates("--admin-socket", edge.adminSocket);
  assert.match(printed, /now trusts the CAs/);
  assert.equal(readFileSync(path.join(certDir, "ca-bundle.pem"), "utf8"), bundle);
  assert.equal((await heartbeat(onNew, { ca: bundle })).status, 200);
  assert.equal((await heartbeat(old.client, { ca: bundle })).status, 200);

  // Before the old CA is retired, the edge presents a certificate from the incoming one (a reload).
  assert.ok(!(await presentedCertificate(edge.port)).checkIssued(newCa));
  await edgeCertificates("--frontend", "incoming");
  edge.reload();
  await until("HAProxy to present the incoming CA's certificate", async () =>
    (await presentedCertificate(edge.port).catch(() => null))?.checkIssued(newCa),
  );
  const newCaOnly = newCa.toString();
  assert.equal((await heartbeat(onNew, { ca: newCaOnly })).status, 200);
  assert.equal((await heartbeat(old.client, { ca: newCaOnly })).status, 200);
  // The reloaded HAProxy trusts both CAs from the files, and the runtime API still works on it.
  await edgeCertificates("--frontend", "incoming", "--admin-socket", edge.adminSocket);
  assert.equal((await heartbeat(onNew, { ca: newCaOnly })).status, 200);
});
