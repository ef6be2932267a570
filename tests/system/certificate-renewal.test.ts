// Rotate's renewal grace (docs/protocol.md, POST /api/agent/v1/rotate): an agent whose certificate
// expired less than `certificateRenewalGraceDays` ago renews it through rotate, and only rotate;
// past the grace, or revoked, it is refused. Expired certificates are signed in the test with the
// fleet CA itself (unsealed with the test KEK) and presented over real mutual TLS.
import assert from "node:assert/strict";
import { createPublicKey } from "node:crypto";
import { after, before, test } from "node:test";
import { createDb, type Db } from "@/lib/server/db/client";
import { issueClientCertificate } from "@/lib/server/pki/client-certificate";
import { decodeStoredCa, type FleetCa } from "@/lib/server/pki/fleet-ca";
import { makeCsr } from "../helpers/csr";
import { registerCluster } from "../helpers/agent-client";
import { startFleetServer, TEST_KEK, type ClientCert, type FleetServer } from "../helpers/fleet-server";

const DAY = 24 * 60 * 60 * 1000;
let server: FleetServer;
let db: Db;
let ca: FleetCa;

before(async () => {
  server = await startFleetServer();
  db = createDb(server.db.database);
  const row = await db.secret.findUniqueOrThrow({ where: { name: "fleet-ca.key" }, omit: { value: false } });
  ca = decodeStoredCa(row.value, Buffer.from(TEST_KEK, "base64")).ca;
});
after(async () => {
  await db?.$disconnect();
  await server?.stop();
});

async function registered(name: string): Promise<{ clusterId: string; key: string }> {
  const { clusterId, client } = await registerCluster(server, name);
  return { clusterId, key: client.key };
}

/** A certificate for the cluster's key, signed by the fleet CA, that ended `daysAgo` days ago. */
async function expiredCertificate(clusterId: string, key: string, daysAgo: number): Promise<ClientCert> {
  const publicKeyPem = createPublicKey(key).export({ type: "spki", format: "pem" }).toString();
  const cert = issueClientCertificate(ca, {
    publicKeyPem,
    clusterId,
    validityDays: 1,
    now: new Date(Date.now() - (daysAgo + 1) * DAY),
  });
  assert.ok(cert.notAfter.getTime() < Date.now() - (daysAgo - 0.01) * DAY);
  await db.certificate.create({
    data: {
      serial: cert.serial,
      clusterId,
      fingerprint: cert.fingerprint,
      pem: cert.pem,
      notBefore: cert.notBefore,
      notAfter: cert.notAfter,
      issuerFingerprint: ca.fingerprint,
    },
  });
  return { cert: cert.pem, key };
}

const heartbeat = {
  agentVersion: "1.4.0",
  kubernetesVersion: "1.30.2",
  health: { apiServer: "ok", logs: true, metrics: true },
};

test("a certificate expired 1 day ago renews through rotate (200), while heartbeat keeps refusing it (401)", async () => {
  const { clusterId, key } = await registered("renew-1d");
  const expired = await expiredCertificate(clusterId, key, 1);

  const hb = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeat, { client: expired });
  assert.equal(hb.status, 401, JSON.stringify(hb.body));
  assert.equal(hb.body.error, "client_certificate_required");
  assert.match(hb.body.message, /expired/);

  const { csr, key: newKey } = makeCsr();
  const rotated = await server.agent("POST", "/api/agent/v1/rotate", { csr }, { client: expired });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  assert.match(rotated.body.certificate, /BEGIN CERTIFICATE/);

  const after = await server.agent("POST", "/api/agent/v1/heartbeat", heartbeat, {
    client: { cert: rotated.body.certificate, key: newKey },
  });
  assert.equal(after.status, 200, JSON.stringify(after.body));
  const audit = await db.auditLog.findFirst({ where: { action: "certificate.rotate", targetId: clusterId } });
  assert.match(String(audit?.details ?? ""), /renewedExpired/);
});

test("a certificate expired past the renewal grace is refused by rotate too", async () => {
  const { clusterId, key } = await registered("renew-40d");
  const expired = await expiredCertificate(clusterId, key, 40);
  const { csr } = makeCsr();
  const res = await server.agent("POST", "/api/agent/v1/rotate", { csr }, { client: expired });
  assert.equal(res.status, 401, JSON.stringify(res.body));
  assert.equal(res.body.error, "client_certificate_required");
  assert.match(res.body.message, /more than 30 days ago.*re-enrol/);
});

test("the grace is the fleet setting certificateRenewalGraceDays", async () => {
  const { clusterId, key } = await registered("renew-grace-0");
  const expired = await expiredCertificate(clusterId, key, 1);
  const patched = await server.api("PATCH", "/api/v1/settings", { certificateRenewalGraceDays: 0 });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.certificateRenewalGraceDays, 0);
  try {
    const { csr } = makeCsr();
    const res = await server.agent("POST", "/api/agent/v1/rotate", { csr }, { client: expired });
    assert.equal(res.status, 401, JSON.stringify(res.body));
  } finally {
    await server.api("PATCH", "/api/v1/settings", { certificateRenewalGraceDays: 30 });
  }
  const bad = await server.api("PATCH", "/api/v1/settings", { certificateRenewalGraceDays: -1 });
  assert.equal(bad.status, 400);
});

test("an expired certificate that was revoked does not renew", async () => {
  const { clusterId, key } = await registered("renew-revoked");
  const expired = await expiredCertificate(clusterId, key, 1);
  const serial = (await db.certificate.findFirstOrThrow({ where: { pem: expired.cert } })).serial;
  await db.certificate.update({ where: { serial }, data: { revokedAt: new Date(), revokeReason: "compromised" } });
  await db.revokedCertificate.create({ data: { serial, clusterId, reason: "revoked" } });
  await new Promise((r) => setTimeout(r, 1500)); // the revocation feed polls once a second
  const { csr } = makeCsr();
  const res = await server.agent("POST", "/api/agent/v1/rotate", { csr }, { client: expired });
  assert.equal(res.status, 403, JSON.stringify(res.body));
  assert.equal(res.body.error, "certificate_revoked");
});
