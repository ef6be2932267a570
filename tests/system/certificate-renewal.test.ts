// Rotate's renewal grace (docs/protocol.md, POST /api/agent/v1/rotate): an agent whose certificate
// expired less than `certificateRenewalGraceDays` ago renews it through rotate, and only rotate;
// past the grace, or revoked, it is refused. Expired certificates are signed in the test with the
// fleet CA itself (unsealed with the test KEK) and presented over real mutual TLS.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createDb, type Db } from "@/lib/server/db/client";
import type { FleetCa } from "@/lib/server/pki/fleet-ca";
import { expiredCertificate as expiredCertificateOf, storedFleetCa } from "../helpers/expired-certificate";
import { makeCsr } from "../helpers/csr";
import { registerCluster } from "../helpers/agent-client";
import { startFleetServer, type ClientCert, type FleetServer } from "../helpers/fleet-server";

let server: FleetServer;
let db: Db;
let ca: FleetCa;

before(async () => {
  server = await startFleetServer();
  db = createDb(server.db.database);
  ca = await storedFleetCa(db);
});
after(async () => {
  await db?.$disconnect();
  await server?.stop();
});

async function registered(name: string): Promise<{ clusterId: string; key: string }> {
  const { clusterId, client } = await registerCluster(server, name);
  return { clusterId, key: client.key };
}

const expiredCertificate = (clusterId: string, key: string, daysAgo: number): Promise<ClientCert> =>
  expiredCertificateOf(db, ca, clusterId, key, daysAgo);

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
