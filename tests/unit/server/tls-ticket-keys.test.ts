// The agent port's shared TLS ticket keys (lib/server/agent-port/tls-ticket-keys.ts): the rotation
// schedule as a pure function, and the stored form on a memory store (sealed under a KEK, one
// write winning when instances race, a key in clear replaced once a KEK is set).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import {
  activeTicketKey,
  currentTicketKey,
  LEAD_MS,
  planTicketKeys,
  ROTATE_MS,
  TICKET_KEYS_SECRET,
  type TicketKey,
} from "@/lib/server/agent-port/tls-ticket-keys";
import type { SecretStore } from "@/lib/server/pki/fleet-ca";
import { setLogLevel } from "@/lib/server/log";

setLogLevel("error");

const T0 = Date.parse("2026-12-01T00:00:00Z");
const key = (id: string, activeFrom: number): TicketKey => ({ id, activeFrom, key: randomBytes(48) });
const fresh = (activeFrom: number) => key(`k${activeFrom}`, activeFrom);

test("planTicketKeys: a first key at once, a successor published LEAD_MS before the switch, the old one dropped after", () => {
  const [first] = planTicketKeys([], T0, fresh)!;
  assert.equal(first!.activeFrom, T0);

  assert.equal(planTicketKeys([first!], T0 + ROTATE_MS - LEAD_MS - 1, fresh), null, "nothing to do mid-life");
  const published = planTicketKeys([first!], T0 + ROTATE_MS - LEAD_MS, fresh)!;
  assert.deepEqual(
    published.map((k) => k.activeFrom),
    [T0, T0 + ROTATE_MS],
  );
  assert.equal(activeTicketKey(published, T0 + ROTATE_MS - 1), first, "the old key until the switch");
  assert.equal(activeTicketKey(published, T0 + ROTATE_MS), published[1], "the new one from the switch");
  assert.equal(planTicketKeys(published, T0 + ROTATE_MS - 1, fresh), null, "the successor is not published twice");
  assert.deepEqual(planTicketKeys(published, T0 + ROTATE_MS, fresh), [published[1]], "the old key is dropped");

  // All instances were down for days: the old key stays in use until its successor, LEAD_MS away.
  const late = planTicketKeys([first!], T0 + 5 * ROTATE_MS, fresh)!;
  assert.equal(late[1]!.activeFrom, T0 + 5 * ROTATE_MS + LEAD_MS);
});

test("activeTicketKey: an instance whose clock is behind uses the oldest key rather than none", () => {
  const k = key("ahead", T0 + 1_000);
  assert.equal(activeTicketKey([k], T0), k);
  assert.equal(planTicketKeys([k], T0, fresh), null);
});

function memoryStore(): SecretStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: async (n) => data.get(n) ?? null,
    create: async (n, v) => (data.has(n) ? false : (data.set(n, v), true)),
    replace: async (n, expected, v) => (data.get(n) === expected ? (data.set(n, v), true) : false),
  };
}

test("currentTicketKey: two instances racing on an empty store agree on one key, stored sealed under the KEK", async () => {
  const store = memoryStore();
  const kek = randomBytes(32);
  const [a, b] = await Promise.all([currentTicketKey(T0, store, kek), currentTicketKey(T0, store, kek)]);
  assert.ok(a.key.equals(b.key));
  assert.equal(a.key.length, 48);
  const stored = store.data.get(TICKET_KEYS_SECRET)!;
  assert.ok(!stored.includes(a.key.toString("base64")), "no key material in clear");
  assert.match(stored, /"sealedKey"/);
  assert.ok((await currentTicketKey(T0 + 60_000, store, kek)).key.equals(a.key), "read back by a later run");

  // Rotation: every instance switches at the published moment.
  await currentTicketKey(T0 + ROTATE_MS - LEAD_MS, store, kek);
  const before = await currentTicketKey(T0 + ROTATE_MS - 1, store, kek);
  const afterSwitch = await currentTicketKey(T0 + ROTATE_MS, store, kek);
  assert.ok(before.key.equals(a.key));
  assert.ok(!afterSwitch.key.equals(a.key));
});

test("currentTicketKey: keys stored in clear are replaced (sealed) once a KEK is set; a wrong KEK gets new keys too", async () => {
  const store = memoryStore();
  const clear = await currentTicketKey(T0, store, null);
  assert.ok(store.data.get(TICKET_KEYS_SECRET)!.includes(clear.key.toString("base64")));
  const kek = randomBytes(32);
  const sealed = await currentTicketKey(T0, store, kek);
  assert.ok(!sealed.key.equals(clear.key));
  assert.match(store.data.get(TICKET_KEYS_SECRET)!, /"sealedKey"/);
  const other = await currentTicketKey(T0, store, randomBytes(32));
  assert.ok(!other.key.equals(sealed.key));
});
