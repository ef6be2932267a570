// The agent port's identity check (lib/server/agent-port/agent-identity.ts) on the engine TEST_ENGINE
// picks: a certificate is judged for each request, at that request's time, not once per connection,
// so one that expires or is revoked while a kept-alive connection is open is refused at the next
// request on it. The connection's own TLS facts (no "expired" mark) are those of its handshake.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { agentIdentity, IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import { ApiError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { revokeClusterCertificates } from "@/lib/server/clusters/update-cluster";
import { db } from "@/lib/server/db/client";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const ACTOR: Actor = { type: "user", id: null, label: "ops@example.com" };
const HOUR = 3_600_000;

/** A cluster with one certificate valid until `notAfter`; the headers its handshake gave. */
async function clusterWithCertificate(id: string, serial: string, notAfter: Date) {
  const fingerprint = `sha256:${serial.padStart(64, "0")}`;
  await db().cluster.create({ data: { id, name: `n-${id}`, phase: "Active", registeredAt: new Date() } });
  await db().certificate.create({
    data: { serial, clusterId: id, fingerprint, pem: "-", notBefore: new Date(notAfter.getTime() - 24 * HOUR), notAfter },
  });
  return new Headers({ [IDENTITY_HEADERS.fingerprint]: fingerprint, [IDENTITY_HEADERS.serial]: serial });
}

const refusal = (code: string) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, code, err.message);
  return true;
};

describe(`the agent's certificate, per request, on ${testEngine()}`, () => {
  test("a certificate that expired since the handshake is refused at the next request; rotate still takes it", async () => {
    const notAfter = new Date(Date.now() + HOUR);
    const headers = await clusterWithCertificate("cl_expiring", "0a1", notAfter);
    const before = await agentIdentity(headers, { now: notAfter.getTime() - 1_000 });
    assert.equal(before.clusterId, "cl_expiring");
    assert.equal(before.expired, false);

    // The same connection's headers (its handshake said "not expired"), a request later in time.
    const later = notAfter.getTime() + 1_000;
    await assert.rejects(agentIdentity(headers, { now: later }), refusal("client_certificate_required"));
    const forRotate = await agentIdentity(headers, { now: later, acceptExpired: true });
    assert.equal(forRotate.expired, true, "rotate sees it as expired and applies its renewal grace");
  });

  test("a certificate revoked through the admin API is refused at the next request, after an accepted one", async () => {
    const headers = await clusterWithCertificate("cl_revoked", "0b2", new Date(Date.now() + 24 * HOUR));
    assert.equal((await agentIdentity(headers)).clusterId, "cl_revoked", "accepted, and now cached");
    await revokeClusterCertificates(ACTOR, "cl_revoked", "key leaked");
    await assert.rejects(agentIdentity(headers), refusal("certificate_revoked"));
  });
});
