// Client certificates that have already expired, signed by a test server's own fleet CA (unsealed
// with the test KEK) and recorded as issued to the cluster, as rotate's renewal grace expects.
import assert from "node:assert/strict";
import { createPublicKey } from "node:crypto";
import type { Db } from "@/lib/server/db/client";
import { issueClientCertificate } from "@/lib/server/pki/client-certificate";
import { decodeStoredCa, type FleetCa } from "@/lib/server/pki/fleet-ca";
import { TEST_KEK, type ClientCert } from "./fleet-server";

const DAY = 24 * 60 * 60 * 1000;

/** The fleet CA (with its key) the server created in `db`. */
export async function storedFleetCa(db: Db): Promise<FleetCa> {
  const row = await db.secret.findUniqueOrThrow({ where: { name: "fleet-ca.key" }, omit: { value: false } });
  return decodeStoredCa(row.value, Buffer.from(TEST_KEK, "base64")).ca;
}

/** A certificate for the cluster's key, signed by `ca`, that ended `daysAgo` days ago. */
export async function expiredCertificate(
  db: Db,
  ca: FleetCa,
  clusterId: string,
  key: string,
  daysAgo: number,
): Promise<ClientCert> {
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
