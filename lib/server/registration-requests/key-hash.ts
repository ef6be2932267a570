import "server-only";
import { createHash, createPublicKey, X509Certificate } from "node:crypto";

const spkiHash = (der: Buffer) => createHash("sha256").update(der).digest("hex");

/** SHA-256 (hex) of a public key's SPKI DER: how a request's repeats are recognised. */
export function keyHashOf(publicKeyPem: string): string {
  return spkiHash(createPublicKey(publicKeyPem).export({ type: "spki", format: "der" }));
}

/** The same hash for a certificate's key, or null when it does not parse. */
export function certificateKeyHash(certificatePem: string): string | null {
  try {
    return spkiHash(new X509Certificate(certificatePem).publicKey.export({ type: "spki", format: "der" }));
  } catch {
    return null;
  }
}
