// The files of `npm run edge:certificates`: HAProxy's server certificate comes from the CA agents
// trust (the incoming one only during a rollover), and its own client certificate is self-signed,
// so that the agent port never takes the proxy's connection for a cluster.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { before, test } from "node:test";
import { edgeBackendIdentity, edgeFrontendPem, proxyFingerprint } from "@/lib/server/pki/edge-certificates";
import { loadOrCreateFleetCa, type FleetCa } from "@/lib/server/pki/fleet-ca";
import { caStateOf as stateOf, memoryStore } from "../../helpers/ca-state";

let oldCa: FleetCa;
let newCa: FleetCa;
before(async () => {
  [oldCa, newCa] = await Promise.all([loadOrCreateFleetCa(memoryStore()), loadOrCreateFleetCa(memoryStore())]);
});

test("the frontend certificate is the serving CA's for the agents' names, or the incoming CA's on request", () => {
  const issuedBy = (pem: string, ca: FleetCa) => new X509Certificate(pem).checkIssued(new X509Certificate(ca.certPem));
  const serving = edgeFrontendPem(stateOf(oldCa, newCa), ["fleet-agent.example.com", "10.0.0.7"]);
  assert.ok(issuedBy(serving, oldCa));
  assert.match(new X509Certificate(serving).subjectAltName ?? "", /DNS:fleet-agent\.example\.com.*IP Address:10\.0\.0\.7/);
  assert.match(serving, /BEGIN PRIVATE KEY/, "certificate and key in one file, as HAProxy's crt wants");
  assert.ok(issuedBy(edgeFrontendPem(stateOf(oldCa, newCa), ["localhost"], "incoming"), newCa));
  assert.throws(() => edgeFrontendPem(stateOf(oldCa, null), ["localhost"], "incoming"), /No CA rollover/);
});

test("the proxy's client certificate is self-signed for client authentication, and the printed pin is its fingerprint", () => {
  const { pem, fingerprint } = edgeBackendIdentity();
  const cert = new X509Certificate(pem);
  assert.ok(cert.issuer === cert.subject && cert.verify(cert.publicKey), "self-signed");
  assert.ok(!cert.checkIssued(new X509Certificate(oldCa.certPem)), "not the fleet CA's");
  assert.equal(cert.ca, false);
  assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.2"]);
  assert.equal(fingerprint, `sha256:${cert.fingerprint256.replace(/:/g, "").toLowerCase()}`);
  assert.equal(proxyFingerprint(pem), fingerprint);
  assert.ok(Date.parse(cert.validTo) - Date.now() > 300 * 24 * 60 * 60 * 1000, "valid for about a year");
});
