import crypto from "node:crypto";
import { promisify } from "node:util";
import forge from "node-forge";
import { keyFingerprint } from "../domain/registration-approval";

// Keys are made here, by Node's OpenSSL, and never leave the process or the state dir: the
// server only ever sees a CSR (the public key plus a proof of possession).

export interface KeyPair {
  /** PKCS#8 PEM. */
  privateKeyPem: string;
  /** SPKI PEM. */
  publicKeyPem: string;
}

const generateKeyPairAsync = promisify(crypto.generateKeyPair);

/** RSA 2048, e = 65537, on libuv's thread pool so many can be made in parallel. */
export async function generateRsaKeyPair(): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync("rsa", {
    modulusLength: 2048,
    publicExponent: 0x10001,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** The pair of a kept private key (PKCS#8 PEM), for a CSR that proves the same key again. */
export function keyPairFromPrivateKey(privateKeyPem: string): KeyPair {
  const publicKeyPem = crypto.createPublicKey(privateKeyPem).export({ type: "spki", format: "pem" }).toString();
  return { privateKeyPem, publicKeyPem };
}

// Parsing a PEM costs about as much as the operation it is parsed for (0.5-2 ms for an RSA key or
// a certificate). An agent uses one or two keys and one fleet CA for its whole life; the simulator
// uses a few pooled keys and one CA for thousands of clusters. So parsed keys and certificates are
// kept, a bounded few, by their PEM text: a registration checks its new certificate three ways
// (key, issuer, lifetime) from one parse.
const PARSED_LIMIT = 256;

function remembered<T>(cache: Map<string, T>, pem: string, parse: () => T): T {
  let value = cache.get(pem);
  if (value === undefined) {
    value = parse();
    if (cache.size >= PARSED_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(pem, value);
  }
  return value;
}

const privateKeys = new Map<string, crypto.KeyObject>();
const forgePublicKeys = new Map<string, forge.pki.PublicKey>();
const caBundles = new Map<string, crypto.X509Certificate[]>();
const certificates = new Map<string, crypto.X509Certificate>();
const fingerprints = new Map<string, string>();

const privateKeyOf = (pem: string) => remembered(privateKeys, pem, () => crypto.createPrivateKey(pem));

/** A certificate parsed once for the checks that follow one another (it throws for a bad PEM). */
export const parsedCertificate = (pem: string) => remembered(certificates, pem, () => new crypto.X509Certificate(pem));

type CsrWithInfo = forge.pki.CertificateSigningRequest;
const getCertificationRequestInfo = (forge.pki as unknown as { getCertificationRequestInfo(csr: CsrWithInfo): forge.asn1.Asn1 })
  .getCertificationRequestInfo;

/**
 * A PKCS#10 CSR: subject CN = `commonName`, no attributes, no extensions, SHA-256 with RSA.
 * forge builds the ASN.1; the signature is made by Node's crypto, because forge's pure
 * JavaScript RSA is ~20x slower, which matters when the simulator signs thousands.
 */
export function buildCsr(keys: KeyPair, commonName: string): string {
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = remembered(forgePublicKeys, keys.publicKeyPem, () => forge.pki.publicKeyFromPem(keys.publicKeyPem));
  csr.setSubject([{ name: "commonName", value: commonName }]);
  csr.signatureOid = csr.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption!;
  csr.certificationRequestInfo = getCertificationRequestInfo(csr);
  const toBeSigned = Buffer.from(forge.asn1.toDer(csr.certificationRequestInfo).getBytes(), "binary");
  const signature = crypto.sign("sha256", toBeSigned, privateKeyOf(keys.privateKeyPem));
  csr.signature = signature.toString("binary");
  return forge.pki.certificationRequestToPem(csr);
}

/** The first PEM block with this label, or null. */
export function firstPemBlock(text: string, label = "CERTIFICATE"): string | null {
  const match = new RegExp(`-----BEGIN ${label}-----[A-Za-z0-9+/=\\s]+?-----END ${label}-----`).exec(text);
  return match ? match[0] + "\n" : null;
}

/** Every certificate in a PEM bundle. */
export function pemCertificates(text: string): string[] {
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/g)].map((m) => m[0] + "\n");
}

/** `sha256:<64 hex>` of a certificate's DER, the format docs/protocol.md uses for fingerprints. */
export function certificateFingerprint(certPem: string): string {
  return remembered(fingerprints, certPem, () => {
    const cert = new crypto.X509Certificate(certPem);
    return "sha256:" + crypto.createHash("sha256").update(cert.raw).digest("hex");
  });
}

const keyFingerprints = new Map<string, string>();

/**
 * `sha256:<64 hex>` of a public key's SPKI DER: the key fingerprint the approval queue shows beside
 * each request, so whoever installed the agent can tell its request from another key's.
 */
export function publicKeyFingerprint(publicKeyPem: string): string {
  return remembered(keyFingerprints, publicKeyPem, () =>
    keyFingerprint(
      crypto
        .createHash("sha256")
        .update(crypto.createPublicKey(publicKeyPem).export({ type: "spki", format: "der" }))
        .digest("hex"),
    ),
  );
}

/** Accepts `sha256:<hex>` (any case) or OpenSSL's `AB:CD:...` form; null when it is neither. */
export function normalizeFingerprint(input: string): string | null {
  const v = input.trim().replace(/^sha256[:=]/i, "");
  const hex = v.replace(/:/g, "").toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) return null;
  if (v.includes(":") && !/^([0-9a-fA-F]{2}:){31}[0-9a-fA-F]{2}$/.test(v)) return null;
  return "sha256:" + hex;
}

/** Does this certificate carry this private key's public key? */
export function certificateMatchesKey(certPem: string, privateKeyPem: string): boolean {
  try {
    return parsedCertificate(certPem).checkPrivateKey(privateKeyOf(privateKeyPem));
  } catch {
    return false;
  }
}

/** Is `certPem` signed by one of the CA certificates in `caPem` (a PEM bundle)? */
export function issuedBy(certPem: string, caPem: string): boolean {
  try {
    const cert = parsedCertificate(certPem);
    const cas = remembered(caBundles, caPem, () => pemCertificates(caPem).map((ca) => new crypto.X509Certificate(ca)));
    return cas.some((caCert) => cert.checkIssued(caCert) && cert.verify(caCert.publicKey));
  } catch {
    return false;
  }
}
