import "server-only";
import { randomBytes } from "node:crypto";
import { env } from "@/lib/env";
import { isSealedKey, sealKey, unsealKey, type SealedKey } from "@/lib/server/pki/ca-key-seal";

// A subscription's signing secret is shown once (create, rotate) and stored sealed under the
// fleet CA's key-encryption key, bound to its purpose: a copy of the database alone cannot sign.
const AAD = Buffer.from("fleet-registry/webhook-secret/v1");

type Stored = { sealed: SealedKey } | { clear: string };

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/** The column value for `secret`: sealed when a KEK is configured (as the CA key is), else in clear. */
export function storeWebhookSecret(secret: string, kek: Buffer | null = env().fleetCaKek): string {
  const stored: Stored = kek ? { sealed: sealKey(secret, kek, AAD) } : { clear: secret };
  return JSON.stringify(stored);
}

export function openWebhookSecret(column: string, kek: Buffer | null = env().fleetCaKek): string {
  const stored = JSON.parse(column) as Partial<{ sealed: unknown; clear: unknown }>;
  if (isSealedKey(stored.sealed)) return unsealKey(stored.sealed, kek, AAD);
  if (typeof stored.clear === "string") return stored.clear;
  throw new Error("malformed webhook secret");
}
