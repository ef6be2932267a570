// PKCS#10 requests for tests, honest and abusive, built with node-forge on keys from Node's
// fast native key generator.
import { generateKeyPairSync, X509Certificate } from "node:crypto";
import forge from "node-forge";

export type CsrOptions = {
  bits?: number;
  exponent?: number;
  commonName?: string;
  requestCa?: boolean;
  keyCertSign?: boolean;
  serverAuth?: boolean;
  sans?: string[];
  tamper?: boolean;
};

export function makeKey(bits = 2048, exponent = 65537) {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: bits,
    publicExponent: exponent,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

export function makeCsr(opts: CsrOptions = {}): { csr: string; key: string } {
  const { privateKeyPem, publicKeyPem } = makeKey(opts.bits, opts.exponent);
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  csr.setSubject([{ name: "commonName", value: opts.commonName ?? "test-cluster" }]);
  const extensions: object[] = [];
  if (opts.requestCa) extensions.push({ name: "basicConstraints", cA: true });
  if (opts.keyCertSign) extensions.push({ name: "keyUsage", keyCertSign: true, digitalSignature: true });
  if (opts.serverAuth) extensions.push({ name: "extKeyUsage", serverAuth: true, clientAuth: true });
  if (opts.sans) extensions.push({ name: "subjectAltName", altNames: opts.sans.map((value) => ({ type: 2, value })) });
  if (extensions.length) csr.setAttributes([{ name: "extensionRequest", extensions }]);
  csr.sign(forge.pki.privateKeyFromPem(privateKeyPem), forge.md.sha256.create());
  let pem = forge.pki.certificationRequestToPem(csr);
  if (opts.tamper) {
    // Change the subject after signing: the self-signature no longer matches.
    csr.setSubject([{ name: "commonName", value: "tampered" }]);
    (csr as unknown as { certificationRequestInfo: unknown }).certificationRequestInfo = null;
    pem = forge.pki.certificationRequestToPem(csr);
  }
  return { csr: pem, key: privateKeyPem };
}

/** An honest CSR for a key the caller already has: an agent retrying with the key it kept. */
export function csrForKey(privateKeyPem: string, commonName = "test-cluster"): string {
  const key = forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey;
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  csr.setSubject([{ name: "commonName", value: commonName }]);
  csr.sign(key, forge.md.sha256.create());
  return forge.pki.certificationRequestToPem(csr);
}

/** A self-signed client certificate (a TLS-terminating proxy's own), with its SHA-256 fingerprint. */
export function selfSignedClientCert(commonName = "edge-proxy"): { cert: string; key: string; fingerprint: string } {
  const { privateKeyPem, publicKeyPem } = makeKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  cert.serialNumber = "01";
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 60 * 60 * 1000);
  cert.setSubject([{ name: "commonName", value: commonName }]);
  cert.setIssuer([{ name: "commonName", value: commonName }]);
  cert.setExtensions([{ name: "extKeyUsage", clientAuth: true }]);
  cert.sign(forge.pki.privateKeyFromPem(privateKeyPem), forge.md.sha256.create());
  const pem = forge.pki.certificateToPem(cert);
  return {
    cert: pem,
    key: privateKeyPem,
    fingerprint: `sha256:${new X509Certificate(pem).fingerprint256.replace(/:/g, "").toLowerCase()}`,
  };
}
