import "server-only";
import { createPublicKey, X509Certificate } from "node:crypto";

/**
 * True when the certificate is for exactly this public key (SPKI PEM, as validateCsr returns it).
 * The DER of both SubjectPublicKeyInfos is compared, so encodings of the same key agree and
 * nothing else (subject, serial) counts. Anything unparsable is simply not the same key.
 */
export function certifiesKey(certPem: string, publicKeyPem: string): boolean {
  try {
    const certified = new X509Certificate(certPem).publicKey.export({ type: "spki", format: "der" });
    const asked = createPublicKey(publicKeyPem).export({ type: "spki", format: "der" });
    return certified.equals(asked);
  } catch {
    return false;
  }
}
