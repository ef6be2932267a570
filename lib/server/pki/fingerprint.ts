import "server-only";
import { createHash, X509Certificate } from "node:crypto";
import type { FleetCa } from "./fleet-ca";

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
 * True when `certPem` was signed by the fleet CA (issuer name and key identifier match, the
 * signature verifies) and both it and the CA are inside their validity window at `now`.
 * Anything unparsable is simply not issued by us.
 */
export function verifyIssuedBy(certPem: string, ca: FleetCa, now: Date = new Date()): boolean {
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
