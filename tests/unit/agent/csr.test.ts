import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, test } from "node:test";
import forge from "node-forge";
import {
  buildCsr,
  certificateFingerprint,
  certificateMatchesKey,
  generateRsaKeyPair,
  issuedBy,
  normalizeFingerprint,
  pemCertificates,
} from "@/lib/agent/csr";
import { makeSimulatedClusterCa } from "@/lib/agent/cluster-ca";

describe("agent keys and CSR", () => {
  test("the CSR parses back with forge: RSA 2048, e=65537, CN = name, valid signature, no attributes", async () => {
    const keys = await generateRsaKeyPair();
    assert.match(keys.privateKeyPem, /^-----BEGIN PRIVATE KEY-----/);
    const pem = buildCsr(keys, "prod-eu-1");
    assert.match(pem, /^-----BEGIN CERTIFICATE REQUEST-----/);

    const csr = forge.pki.certificationRequestFromPem(pem);
    assert.equal(csr.verify(), true);
    const publicKey = csr.publicKey as forge.pki.rsa.PublicKey;
    assert.equal(publicKey.n.bitLength(), 2048);
    assert.equal(publicKey.e.toString(), "65537");
    assert.equal(csr.subject.getField("CN").value, "prod-eu-1");
    assert.equal(csr.subject.attributes.length, 1, "subject has only the CN");
    assert.equal(csr.attributes.length, 0, "no extension request, no SANs");
    assert.equal(csr.signatureOid, forge.pki.oids.sha256WithRSAEncryption);

    // The CSR carries exactly our public key.
    const spki = crypto.createPublicKey(keys.publicKeyPem).export({ type: "spki", format: "der" });
    const fromCsr = crypto.createPublicKey(forge.pki.publicKeyToPem(publicKey)).export({ type: "spki", format: "der" });
    assert.deepEqual(fromCsr, spki);
  });

  test("OpenSSL (node:crypto) also accepts the CSR signature", async () => {
    const keys = await generateRsaKeyPair();
    const csr = forge.pki.certificationRequestFromPem(buildCsr(keys, "x"));
    const info = forge.asn1.toDer(csr.certificationRequestInfo!).getBytes();
    const ok = crypto.verify(
      "sha256",
      Buffer.from(info, "binary"),
      keys.publicKeyPem,
      Buffer.from(csr.signature as string, "binary"),
    );
    assert.equal(ok, true);
  });

  test("a tampered CSR does not verify", async () => {
    const keys = await generateRsaKeyPair();
    const other = await generateRsaKeyPair();
    const csr = forge.pki.certificationRequestFromPem(buildCsr(keys, "a"));
    csr.publicKey = forge.pki.publicKeyFromPem(other.publicKeyPem);
    // forge either returns false or throws on a signature made by another key.
    let verified: boolean;
    try {
      verified = csr.verify();
    } catch {
      verified = false;
    }
    assert.equal(verified, false);
  });

  test("fingerprints are sha256 of the DER, and the pin parser accepts both common spellings", async () => {
    const ca = await makeSimulatedClusterCa();
    const der = new crypto.X509Certificate(ca).raw;
    const hex = crypto.createHash("sha256").update(der).digest("hex");
    assert.equal(certificateFingerprint(ca), `sha256:${hex}`);
    assert.equal(normalizeFingerprint(`SHA256:${hex.toUpperCase()}`), `sha256:${hex}`);
    const colons = hex.toUpperCase().match(/../g)!.join(":");
    assert.equal(normalizeFingerprint(colons), `sha256:${hex}`);
    assert.equal(normalizeFingerprint("sha256:abc"), null);
    assert.equal(normalizeFingerprint(`md5:${hex}`), null);
    assert.equal(new crypto.X509Certificate(ca).ca, true);
  });

  test("certificateMatchesKey and issuedBy tell matching pairs from others", async () => {
    const ca = await makeSimulatedClusterCa();
    const keys = await generateRsaKeyPair();
    assert.equal(certificateMatchesKey(ca, keys.privateKeyPem), false);
    assert.equal(issuedBy(ca, ca), true, "self-signed is issued by itself");
    const other = await makeSimulatedClusterCa();
    assert.equal(issuedBy(ca, other), false);
    assert.equal(pemCertificates(ca + other).length, 2);
  });
});
