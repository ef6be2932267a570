import "server-only";
import { createHash, randomBytes, sign, X509Certificate, type KeyObject } from "node:crypto";
import forge from "node-forge";

// The X.509 toolkit the fleet CA, the agent port's server certificate and agents' client
// certificates share: names, serials, fingerprints, and signing. forge assembles the
// TBSCertificate; Node's native crypto signs it, with RSA or ECDSA (forge's pure JavaScript RSA is
// far slower per signature, see client-certificate.ts, and it has no ECDSA). Nothing here knows
// about the fleet CA or the database.

/** Agents' clocks drift: certificates start this long before they were issued. */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;

// @types/node-forge types valueTagClass as asn1.Class, but forge stores the universal type there.
export const UTF8 = forge.asn1.Type.UTF8 as unknown as forge.asn1.Class;

/**
 * Names as UTF8String: forge defaults to PrintableString, which cannot hold "_" (cluster ids
 * are `cl_...`), and strict parsers such as Go's reject such certificates.
 */
export function utf8Name(pairs: [shortName: string, value: string][]): forge.pki.CertificateField[] {
  return pairs.map(([shortName, value]) => ({ shortName, value, valueTagClass: UTF8 }));
}

/**
 * A random positive serial of 16 bytes. The top bit is cleared (DER INTEGERs are signed) and the
 * next one set, so the encoding is always 16 bytes with no leading zero to normalise: the hex
 * string is the serial exactly as Node and OpenSSL print it (lowercased). 126 random bits.
 */
export function randomSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x3f) | 0x40;
  return bytes.toString("hex");
}

/** X.509 times have second precision; truncating first makes returned Dates match the certificate. */
export function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/**
 * A subjectKeyIdentifier extension for a key forge cannot read: SHA-1 of the subjectPublicKey
 * BIT STRING's bits (RFC 5280 4.2.1.2, method 1), as forge computes it for RSA keys.
 */
export function subjectKeyIdentifierOf(key: KeyObject): { name: "subjectKeyIdentifier"; value: forge.asn1.Asn1 } {
  const spki = forge.asn1.fromDer(key.export({ type: "spki", format: "der" }).toString("binary"));
  const bits = ((spki.value as forge.asn1.Asn1[])[1]!.value as string).slice(1); // first byte: unused bits (0)
  const digest = createHash("sha1").update(Buffer.from(bits, "binary")).digest("binary");
  return {
    name: "subjectKeyIdentifier",
    value: forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.OCTETSTRING, false, digest),
  };
}

/** A public key for forge to hold where it cannot encode the real one: signCertificate's `subjectKey` replaces it. */
export const STAND_IN_KEY = forge.pki.setRsaPublicKey(new forge.jsbn.BigInteger("3"), new forge.jsbn.BigInteger("3"));

export function forgePublicKey(key: KeyObject | string): forge.pki.rsa.PublicKey {
  const pem = typeof key === "string" ? key : key.export({ type: "spki", format: "pem" }).toString();
  return forge.pki.publicKeyFromPem(pem);
}

/** The signature algorithms a fleet CA signs with, by its key's type: OID and DER AlgorithmIdentifier. */
const SIGNATURE_ALGORITHMS = {
  // { sha256WithRSAEncryption, NULL }
  rsa: { oid: "1.2.840.113549.1.1.11", der: Buffer.from("300d06092a864886f70d01010b0500", "hex") },
  // { ecdsa-with-SHA256 } with no parameters (RFC 5758 3.2)
  ec: { oid: "1.2.840.10045.4.3.2", der: Buffer.from("300a06082a8648ce3d040302", "hex") },
} as const;
const getTbsCertificate = (forge.pki as unknown as { getTBSCertificate(cert: forge.pki.Certificate): forge.asn1.Asn1 })
  .getTBSCertificate;

/**
 * Signs `cert` with `signerKey` using Node's native crypto: sha256WithRSAEncryption for an RSA key,
 * ecdsa-with-SHA256 for an EC one; returns the certificate DER.
 * `subjectKey`: a key forge cannot encode (it knows RSA only; the agent port's key is EC P-256),
 * whose SubjectPublicKeyInfo replaces the stand-in `cert.publicKey` in the TBSCertificate.
 */
export function signCertificate(cert: forge.pki.Certificate, signerKey: KeyObject, subjectKey?: KeyObject): Buffer {
  const type = signerKey.asymmetricKeyType;
  if (type !== "rsa" && type !== "ec") throw new Error(`A certificate cannot be signed with a ${type ?? "unknown"} key.`);
  const algorithm = SIGNATURE_ALGORITHMS[type];
  cert.signatureOid = cert.siginfo.algorithmOid = algorithm.oid;
  const tbsAsn1 = getTbsCertificate(cert);
  // TBSCertificate ::= SEQUENCE { [0] version, serial, signature, issuer, validity, subject, spki, ... }
  const fields = tbsAsn1.value as forge.asn1.Asn1[];
  // forge writes a NULL parameter for every algorithm it does not know; ECDSA's has none, and the
  // TBSCertificate's copy must equal the outer one byte for byte (OpenSSL compares them).
  fields[2] = forge.asn1.fromDer(algorithm.der.toString("binary"));
  if (subjectKey) fields[6] = forge.asn1.fromDer(subjectKey.export({ type: "spki", format: "der" }).toString("binary"));
  const tbs = Buffer.from(forge.asn1.toDer(tbsAsn1).getBytes(), "binary");
  // Node's ECDSA signatures are DER (Ecdsa-Sig-Value), as X.509 wants them.
  const signature = sign("sha256", tbs, signerKey);
  // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }
  return derTlv(0x30, tbs, algorithm.der, derTlv(0x03, Buffer.from([0]), signature));
}

function derTlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function derToPem(der: Buffer, label: string): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/** "sha256:<64 lowercase hex>" of a certificate's DER. Throws if the input is not a certificate. */
export function certificateFingerprint(pemOrDer: string | Buffer): string {
  return sha256Fingerprint(new X509Certificate(pemOrDer).raw);
}

/** For DER we just produced ourselves: no need to parse it again. */
export function sha256Fingerprint(der: Buffer): string {
  return `sha256:${createHash("sha256").update(der).digest("hex")}`;
}

/**
 * The serial as lowercase hex, the form issueClientCertificate returns and the database stores.
 * Node prints the serial's magnitude in whole bytes without a sign byte; our serials always
 * start with a byte in 0x40-0x7f, so the two forms agree exactly.
 */
export function certificateSerial(pem: string): string {
  return new X509Certificate(pem).serialNumber.toLowerCase();
}

/**
 * True when `certPem` was signed by the CA (issuer name and key identifier match, the signature
 * verifies) and both it and the CA are inside their validity window at `now`. Anything
 * unparsable is simply not issued by it.
 */
export function verifyIssuedBy(certPem: string, ca: { certPem: string }, now: Date = new Date()): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const caCert = new X509Certificate(ca.certPem);
    return cert.checkIssued(caCert) && cert.verify(caCert.publicKey) && isCurrent(cert, now) && isCurrent(caCert, now);
  } catch {
    return false;
  }
}

function isCurrent(cert: X509Certificate, now: Date): boolean {
  const t = now.getTime();
  return new Date(cert.validFrom).getTime() <= t && t <= new Date(cert.validTo).getTime();
}
