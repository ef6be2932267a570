import "server-only";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A random URL-safe secret with `bytes` bytes of entropy. */
export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}

/** A short random public id (lowercase alphanumerics, ~60 bits). */
export function randomId(length = 12): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let out = "";
  while (out.length < length) {
    for (const b of randomBytes(length)) {
      // 252 = 7 * 36: rejecting the top bytes keeps every character equally likely.
      if (b < 252 && out.length < length) out += alphabet[b % 36];
    }
  }
  return out;
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Compares two hex digests of the same fixed length in constant time. */
export function digestsEqual(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, "hex");
  const b = Buffer.from(bHex, "hex");
  return a.length === 32 && b.length === 32 && timingSafeEqual(a, b);
}

/**
 * Splits `<prefix>_<id>_<secret>` credentials (registration tokens, API keys). The id is
 * lowercase alphanumerics; the secret is base64url and may itself contain "_".
 */
export function parseCredential(value: string, prefix: string): { id: string; secret: string } | null {
  const m = new RegExp(`^${prefix}_([a-z0-9]{8,32})_([A-Za-z0-9_-]{22,128})$`).exec(value);
  return m ? { id: m[1]!, secret: m[2]! } : null;
}
