import "server-only";
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

// The fleet CA's private key is stored sealed: AES-256-GCM under a key-encryption key (KEK) that
// is configured apart from the database (FLEET_CA_KEK / FLEET_CA_KEK_FILE), so a copy of the data
// alone cannot mint certificates agents trust.

export type SealedKey = {
  /** Envelope format; bump when any field's meaning changes. */
  v: 1;
  alg: "A256GCM";
  /** Which KEK sealed it: the first 8 bytes of SHA-256 over the KEK, in hex. Names, never reveals. */
  kid: string;
  iv: string;
  tag: string;
  ct: string;
};

/** Why a sealed CA key cannot be opened; the message is one sentence naming what to set. */
export class CaKeyError extends Error {}

// Binds the ciphertext to its purpose: a sealed blob moved into another field does not open.
// Other secrets sealed under the same KEK (the agent port's TLS ticket keys) name their own.
const AAD = Buffer.from("fleet-registry/fleet-ca-key/v1");

export const KEK_BYTES = 32;

export function kekId(kek: Buffer): string {
  return createHash("sha256").update(kek).digest("hex").slice(0, 16);
}

export function sealKey(keyPem: string, kek: Buffer, aad = AAD): SealedKey {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", kek, iv);
  cipher.setAAD(aad);
  const ct = Buffer.concat([cipher.update(keyPem, "utf8"), cipher.final()]);
  return {
    v: 1,
    alg: "A256GCM",
    kid: kekId(kek),
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    ct: ct.toString("base64"),
  };
}

export function unsealKey(sealed: SealedKey, kek: Buffer | null, aad = AAD): string {
  if (!kek) {
    throw new CaKeyError(
      "The fleet CA private key is sealed but no key-encryption key is configured: set FLEET_CA_KEK_FILE (or FLEET_CA_KEK) to the KEK this fleet was started with.",
    );
  }
  if (sealed.kid !== kekId(kek)) {
    throw new CaKeyError(
      `The configured FLEET_CA_KEK/FLEET_CA_KEK_FILE is not the key-encryption key that sealed the fleet CA (sealed with KEK id ${sealed.kid}, configured ${kekId(kek)}): set the KEK this fleet was started with.`,
    );
  }
  try {
    const decipher = createDecipheriv("aes-256-gcm", kek, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(aad);
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ct, "base64")), decipher.final()]).toString("utf8");
  } catch {
    throw new CaKeyError(
      "The sealed fleet CA key does not open with the configured FLEET_CA_KEK/FLEET_CA_KEK_FILE (tampered or wrong key): restore the database or set the right KEK.",
    );
  }
}

export function isSealedKey(value: unknown): value is SealedKey {
  if (!value || typeof value !== "object") return false;
  const s = value as Record<string, unknown>;
  return (
    s.v === 1 &&
    s.alg === "A256GCM" &&
    typeof s.kid === "string" &&
    typeof s.iv === "string" &&
    typeof s.tag === "string" &&
    typeof s.ct === "string"
  );
}
