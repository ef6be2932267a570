// PKCS#10 requests for tests, honest and abusive, built with node-forge on keys from Node's
// native key generator (pooled under node:test, makeKey) and signed with Node's native RSA.
import { constants, generateKeyPairSync, privateEncrypt, X509Certificate } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
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

// DER of SHA-256's AlgorithmIdentifier in a PKCS#1 v1.5 DigestInfo, ahead of the 32-byte digest.
const SHA256_DIGEST_INFO = Buffer.from("3031300d060960864801650304020105000420", "hex");

/**
 * A key forge signs with, doing the RSA operation in Node's native crypto (PKCS#1 v1.5, as forge
 * would): forge's own takes ~30 ms of JavaScript per signature.
 */
function nativeSigner(privateKeyPem: string) {
  return {
    sign(md: forge.md.MessageDigest): string {
      const digestInfo = Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(md.digest().getBytes(), "binary")]);
      return privateEncrypt({ key: privateKeyPem, padding: constants.RSA_PKCS1_PADDING }, digestInfo).toString("binary");
    },
  } as unknown as forge.pki.rsa.PrivateKey;
}

export type TestKey = { privateKeyPem: string; publicKeyPem: string };

/**
 * A fresh RSA key of `bits` (distinct from every other this process was given). Under node:test
 * the default, RSA-2048 with e = 65537, comes from a pool kept in the temp folder and shared by the
 * test processes of this machine: one such key takes ~300 ms of CPU to generate, and a suite
 * registers hundreds of clusters. Each test file starts its own server on a fresh database, so keys
 * repeat only across servers that never meet. Elsewhere (Playwright's workers share one server,
 * where a key denied to one cluster is refused for a while to any other) every key is new.
 */
export function makeKey(bits = 2048, exponent = 65537): TestKey {
  if (bits !== 2048 || exponent !== 65537 || !process.env.NODE_TEST_CONTEXT) return generateKey(bits, exponent);
  const pool = (keyPool ??= readPool());
  if (pool.next < pool.keys.length) return pool.keys[pool.next++]!;
  const key = generateKey(bits, exponent);
  addToPool(key);
  return key;
}

const POOL_SIZE = 128;
const poolFile = path.join(os.tmpdir(), "fleet-registry-test-keys-rsa2048-v1.json");
let keyPool: { keys: TestKey[]; next: number } | undefined;

function generateKey(bits: number, exponent: number): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: bits,
    publicExponent: exponent,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

function readPool(): { keys: TestKey[]; next: number } {
  try {
    const keys: unknown = JSON.parse(readFileSync(poolFile, "utf8"));
    if (Array.isArray(keys)) return { keys: keys as TestKey[], next: 0 };
  } catch {
    // No pool yet (or a torn one): this process grows a new one.
  }
  return { keys: [], next: 0 };
}

/** Keeps a key this process had to generate for the next processes, until the pool is full. */
function addToPool(key: TestKey): void {
  const stored = readPool().keys;
  if (stored.length >= POOL_SIZE) return;
  // Written whole and renamed into place, so a process reading it at the same time sees the old
  // pool or the new one; two processes growing it at once lose a key, not the file.
  const temporary = `${poolFile}.${process.pid}`;
  writeFileSync(temporary, JSON.stringify([...stored, key]), { mode: 0o600 });
  renameSync(temporary, poolFile);
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
  csr.sign(nativeSigner(privateKeyPem), forge.md.sha256.create());
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
