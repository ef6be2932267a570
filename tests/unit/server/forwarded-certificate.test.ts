// What a proven proxy's X-Forwarded-Client-Cert may say (forwardedCertificate): exactly one
// certificate, as URL-encoded PEM (nginx), an Envoy element's Cert, or DER in base64 (HAProxy's
// ssl_c_der,base64); it counts only when it chains to a trusted CA, and an expired one is marked.
import assert from "node:assert/strict";
import { createPublicKey, X509Certificate } from "node:crypto";
import { before, test } from "node:test";
import { ForwardedCertError, ForwardedIdentities, forwardedCertificate } from "@/lib/server/agent-port/forwarded-certificate";
import { issueClientCertificate } from "@/lib/server/pki/client-certificate";
import { loadOrCreateFleetCa, type FleetCa } from "@/lib/server/pki/fleet-ca";
import { memoryStore } from "../../helpers/ca-state";
import { makeKey } from "../../helpers/csr";

const DAY = 24 * 60 * 60 * 1000;
let ours: FleetCa;
let foreign: FleetCa;
let trusted: X509Certificate[];

function certificate(ca: FleetCa, now?: Date): string {
  const publicKeyPem = createPublicKey(makeKey().privateKeyPem).export({ type: "spki", format: "pem" }).toString();
  return issueClientCertificate(ca, { publicKeyPem, clusterId: "cl_fwd000000000001", validityDays: 1, now }).pem;
}
const base64Der = (pem: string) => new X509Certificate(pem).raw.toString("base64");

before(async () => {
  [ours, foreign] = await Promise.all([loadOrCreateFleetCa(memoryStore()), loadOrCreateFleetCa(memoryStore())]);
  trusted = [new X509Certificate(ours.certPem)];
});

test("HAProxy's base64 DER names the certificate, as the PEM forms do", () => {
  const pem = certificate(ours);
  const expected = new X509Certificate(pem).fingerprint256;
  for (const value of [
    base64Der(pem),
    ` ${base64Der(pem)} `,
    encodeURIComponent(pem),
    `By=x;Cert="${encodeURIComponent(pem)}"`,
  ]) {
    const fwd = forwardedCertificate(value, trusted);
    assert.equal(fwd?.cert.fingerprint256, expected, value.slice(0, 30));
    assert.equal(fwd?.expired, false);
  }
});

test("base64 DER: an expired certificate of the fleet is marked expired; a foreign CA's is none", () => {
  const expired = forwardedCertificate(base64Der(certificate(ours, new Date(Date.now() - 3 * DAY))), trusted);
  assert.equal(expired?.expired, true);
  assert.equal(forwardedCertificate(base64Der(certificate(foreign)), trusted), null);
});

test("base64 DER holding two certificates is refused, whichever comes first; damaged or loose base64 is none", () => {
  const mine = new X509Certificate(certificate(ours)).raw;
  const theirs = new X509Certificate(certificate(ours)).raw;
  for (const pair of [Buffer.concat([mine, theirs]), Buffer.concat([theirs, mine])]) {
    assert.throws(() => forwardedCertificate(pair.toString("base64"), trusted), ForwardedCertError);
  }
  const b64 = mine.toString("base64");
  const damaged = [
    b64.slice(0, -12), // truncated
    b64.replace(/\+/g, "-").replace(/\//g, "_"), // base64url
    `${b64.slice(0, 64)}\n${b64.slice(64)}`, // line breaks
    ...(b64.endsWith("=") ? [b64.replace(/=+$/, "")] : []), // unpadded
    Buffer.concat([mine, Buffer.from([0])]).toString("base64"), // a trailing byte
  ];
  for (const value of damaged) {
    let result;
    try {
      result = forwardedCertificate(value, trusted);
    } catch (err) {
      assert.ok(err instanceof ForwardedCertError, String(err));
      continue;
    }
    assert.equal(result, null, value.slice(-20));
  }
});

test("remembered per trust list: the same answers as forwardedCertificate, the dates read at every request", () => {
  const identities = new ForwardedIdentities(trusted);
  const pem = certificate(ours);
  const cert = new X509Certificate(pem);
  const value = base64Der(pem);
  const notBefore = Date.parse(cert.validFrom);
  const notAfter = Date.parse(cert.validTo);
  const expected = { fingerprint256: cert.fingerprint256, serial: cert.serialNumber };
  // Asked first before the certificate's start, then within its dates, then after its end.
  assert.equal(identities.identity(value, notBefore - 1000), null);
  assert.deepEqual(identities.identity(value, notBefore + 1000), { ...expected, expired: false });
  assert.deepEqual(identities.identity(value, notAfter + 1000), { ...expected, expired: true });
  assert.equal(identities.size, 1);
  // Refusals are not remembered: each request is refused again.
  assert.equal(identities.identity(base64Der(certificate(foreign))), null);
  const pair = Buffer.concat([cert.raw, new X509Certificate(certificate(ours)).raw]).toString("base64");
  for (let i = 0; i < 2; i++) assert.throws(() => identities.identity(pair), ForwardedCertError);
  assert.equal(identities.size, 1);
  // Another trust list (after a rollover) believes nothing of the old one's.
  assert.equal(new ForwardedIdentities([new X509Certificate(foreign.certPem)]).identity(value), null);
});

test("remembers at most its limit, the oldest going first, and still answers for those it forgot", () => {
  const identities = new ForwardedIdentities(trusted, 2);
  const values = [certificate(ours), certificate(ours), certificate(ours)].map(base64Der);
  for (const v of values) assert.ok(identities.identity(v));
  assert.equal(identities.size, 2);
  assert.equal(identities.identity(values[0]!)?.expired, false);
  assert.equal(identities.size, 2);
});
