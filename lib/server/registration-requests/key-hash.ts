import "server-only";
import { createHash, createPublicKey, X509Certificate } from "node:crypto";

const spkiHash = (der: Buffer) => createHash("sha256").update(der).digest("hex");

const SPKI_PEM = /^-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END PUBLIC KEY-----\s*$/;

/**
 * SHA-256 (hex) of a public key's SPKI DER: how a request's repeats are recognised. A "PUBLIC KEY"
 * PEM (what the CSR check exports) is that DER in base64, so it is hashed as it stands: parsing
 * and exporting the key again costs the registration path a third of a millisecond of main thread.
 */
export function keyHashOf(publicKeyPem: string): string {
  const spki = SPKI_PEM.exec(publicKeyPem.trim());
  if (spki) return spkiHash(Buffer.from(spki[1]!.replace(/\s+/g, ""), "base64"));
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
