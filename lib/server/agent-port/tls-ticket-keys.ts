import "server-only";
import { randomBytes } from "node:crypto";
import { env } from "@/lib/env";
import { db } from "@/lib/server/db/client";
import { log } from "@/lib/server/log";
import { onPrimary } from "@/lib/server/agent-port/workers/primary-calls";
import { dbSecretStore, type SecretStore } from "@/lib/server/pki/fleet-ca";
import { isSealedKey, sealKey, unsealKey, type SealedKey } from "@/lib/server/pki/ca-key-seal";

// TLS session tickets on the agent port. A ticket is the session's state encrypted under the
// server's ticket key; any instance holding the same key resumes it without a full handshake (no
// certificate signature, no client-certificate chain check by OpenSSL). The key lives in the
// database (secret `agent-tls.ticket-keys`, sealed under the KEK like the CA key when one is
// set), so every instance behind a load balancer, and this one after a restart, resumes the
// sessions of the others.
//
// Node accepts ONE ticket key at a time (server.setTicketKeys): tickets encrypted under the key
// before are not decrypted after a switch, and those agents pay one full handshake on their next
// new connection. So keys are rotated rarely (ROTATE_MS), and a new key is published LEAD_MS
// before it is used: every instance has read it by then and all switch within one
// TICKET_KEYS_WATCH_MS of the agreed moment (clock skew aside), instead of refusing each other's
// fresh tickets for as long as it takes each to notice a new key.

export const TICKET_KEYS_SECRET = "agent-tls.ticket-keys";
/** Node's ticketKeys: 16 bytes key name, 16 bytes HMAC secret, 16 bytes AES key. */
export const TICKET_KEY_BYTES = 48;
/** How long one key encrypts tickets; also the tickets' lifetime (no ticket outlives its key). */
export const ROTATE_MS = 12 * 60 * 60 * 1000;
/** A new key is stored this long before it is used; much longer than TICKET_KEYS_WATCH_MS. */
export const LEAD_MS = 5 * 60 * 1000;
/** Every instance reads the keys this often (the job in server.ts). */
export const TICKET_KEYS_WATCH_MS = 10_000;

const AAD = Buffer.from("fleet-registry/agent-tls-ticket-keys/v1");

export type TicketKey = { id: string; activeFrom: number; key: Buffer };

type StoredKey = { id: string; activeFrom: string } & ({ key: string } | { sealedKey: SealedKey });
type Stored = { version: 1; keys: StoredKey[] };

export function newTicketKey(activeFrom: number): TicketKey {
  return { id: randomBytes(6).toString("hex"), activeFrom, key: randomBytes(TICKET_KEY_BYTES) };
}

/**
 * The key tickets are encrypted and decrypted with at `now`: the newest already active (before
 * any is, because another instance's clock runs ahead of this one's, the oldest).
 */
export function activeTicketKey(keys: readonly TicketKey[], now: number): TicketKey | null {
  const sorted = [...keys].sort((a, b) => a.activeFrom - b.activeFrom);
  return sorted.filter((k) => k.activeFrom <= now).at(-1) ?? sorted[0] ?? null;
}

/**
 * The keys to store at `now`, or null when the stored ones are right: a first key active at once;
 * a successor published LEAD_MS ahead of the active key's end; keys older than the active one
 * dropped (Node could not decrypt with them anyway).
 */
export function planTicketKeys(keys: readonly TicketKey[], now: number, fresh = newTicketKey): TicketKey[] | null {
  const active = activeTicketKey(keys, now);
  if (!active) return [fresh(now)];
  const later = keys.filter((k) => k.activeFrom > active.activeFrom);
  if (later.length === 0 && now >= active.activeFrom + ROTATE_MS - LEAD_MS) {
    return [active, fresh(Math.max(active.activeFrom + ROTATE_MS, now + LEAD_MS))];
  }
  return later.length + 1 === keys.length ? null : [active, ...later];
}

function encode(keys: TicketKey[], kek: Buffer | null): string {
  const stored: Stored = {
    version: 1,
    keys: keys.map(({ id, activeFrom, key }) => {
      const material = key.toString("base64");
      return {
        id,
        activeFrom: new Date(activeFrom).toISOString(),
        ...(kek ? { sealedKey: sealKey(material, kek, AAD) } : { key: material }),
      };
    }),
  };
  return JSON.stringify(stored);
}

/**
 * The stored keys, or null when they cannot be used: unparsable, sealed under another KEK, or in
 * clear while a KEK is set (then they are replaced, sealed: agents pay one full handshake).
 */
function decode(value: string, kek: Buffer | null): TicketKey[] | null {
  try {
    const stored = JSON.parse(value) as Stored;
    if (stored.version !== 1 || !Array.isArray(stored.keys)) return null;
    const keys = stored.keys.map((k) => {
      if ("sealedKey" in k && !isSealedKey(k.sealedKey)) throw new Error("malformed sealed ticket key");
      if ("key" in k && kek) throw new Error("ticket key in clear while a KEK is set");
      const material = "sealedKey" in k ? unsealKey(k.sealedKey, kek, AAD) : k.key;
      const key = Buffer.from(material, "base64");
      const activeFrom = Date.parse(k.activeFrom);
      if (key.length !== TICKET_KEY_BYTES || !Number.isFinite(activeFrom)) throw new Error("malformed ticket key");
      return { id: String(k.id), activeFrom, key };
    });
    return keys;
  } catch (err) {
    log.warn("the agent port's TLS ticket keys cannot be read; replacing them", { error: (err as Error).message });
    return null;
  }
}

/**
 * Reads the shared keys, stores a first key or a successor when due (compare-and-swap: when
 * instances race, one write wins and the others read it), and returns the key to use now.
 */
export async function currentTicketKey(
  now = Date.now(),
  store: SecretStore = ticketKeyStore(),
  kek: Buffer | null = env().fleetCaKek,
): Promise<TicketKey> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const raw = await store.get(TICKET_KEYS_SECRET);
    const keys = raw === null ? [] : (decode(raw, kek) ?? []);
    const planned = planTicketKeys(keys, now);
    if (!planned) return activeTicketKey(keys, now)!;
    const value = encode(planned, kek);
    const written =
      raw === null ? await store.create(TICKET_KEYS_SECRET, value) : await store.replace!(TICKET_KEYS_SECRET, raw, value);
    if (written) {
      log.info("agent port TLS ticket keys stored", {
        keys: planned.map((k) => `${k.id}@${new Date(k.activeFrom).toISOString()}`).join(","),
      });
      return activeTicketKey(planned, now)!;
    }
  }
  throw new Error("the agent port's TLS ticket keys kept changing under this instance; will try again");
}

// An agent-port worker on SQLite stores a first key or a successor through the main process, the file's one writer.
const createKeys = onPrimary("ticket-keys-create", (name: string, value: string) => dbSecretStore(db()).create(name, value));
const replaceKeys = onPrimary("ticket-keys-replace", (name: string, expected: string, value: string) =>
  dbSecretStore(db()).replace!(name, expected, value),
);

function ticketKeyStore(): SecretStore {
  return { get: (name) => dbSecretStore(db()).get(name), create: createKeys, replace: replaceKeys };
}
