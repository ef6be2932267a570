// How a key's new ask for a name is answered from its earlier request (docs/protocol.md,
// "Approval"), the denied key's cooldown, the fingerprint the agent prints and the queue's cursor.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { describe, test } from "node:test";
import { publicKeyFingerprint } from "@/lib/agent/csr";
import {
  answerFromEarlier,
  decodeRequestCursor,
  deniedKeyCoolingDown,
  encodeRequestCursor,
  keyFingerprint,
  keyHashQuery,
  pendingSlot,
  type EarlierRequest,
} from "@/lib/domain/registration-approval";
import { DEFAULT_SETTINGS, settingsPatchSchema } from "@/lib/domain/settings";

const NOW = new Date("2026-12-06T12:00:00Z");
const HOUR = 3_600_000;
const at = (hoursAgo: number) => new Date(NOW.getTime() - hoursAgo * HOUR);
const earlier = (over: Partial<EarlierRequest>): EarlierRequest => ({
  state: "pending",
  expiresAt: new Date(NOW.getTime() + 24 * HOUR),
  decidedAt: null,
  sameToken: true,
  ...over,
});

describe("a key asking again for a name", () => {
  test("pending: the same request, whatever the token; past its expiry: expire it", () => {
    assert.equal(answerFromEarlier(earlier({}), NOW, 24), "pending");
    assert.equal(answerFromEarlier(earlier({ sameToken: false }), NOW, 24), "pending", "a token replaced meanwhile is fine");
    assert.equal(answerFromEarlier(earlier({ expiresAt: NOW }), NOW, 24), "expire");
  });

  test("denied: refused with any token for the cooldown, then it may ask anew", () => {
    for (const sameToken of [true, false]) {
      assert.equal(answerFromEarlier(earlier({ state: "denied", decidedAt: at(1), sameToken }), NOW, 24), "denied");
      assert.equal(answerFromEarlier(earlier({ state: "denied", decidedAt: at(23.9), sameToken }), NOW, 24), "denied");
      assert.equal(answerFromEarlier(earlier({ state: "denied", decidedAt: at(24), sameToken }), NOW, 24), "ask-anew");
    }
    assert.equal(answerFromEarlier(earlier({ state: "denied", decidedAt: at(2) }), NOW, 1), "ask-anew", "the setting decides");
    assert.equal(deniedKeyCoolingDown(at(5), NOW, 24), true);
    assert.equal(deniedKeyCoolingDown(at(25), NOW, 24), false);
    assert.equal(deniedKeyCoolingDown(null, NOW, 24), true, "a denial without a time counts as just now");
  });

  test("expired: 410 to the agent that kept asking with its token; another token asks anew", () => {
    assert.equal(answerFromEarlier(earlier({ state: "expired" }), NOW, 24), "expired");
    assert.equal(answerFromEarlier(earlier({ state: "expired", sameToken: false }), NOW, 24), "ask-anew");
  });

  test("approved or completed: collect the certificate", () => {
    assert.equal(answerFromEarlier(earlier({ state: "approved", sameToken: false }), NOW, 24), "collect");
    assert.equal(answerFromEarlier(earlier({ state: "completed" }), NOW, 24), "collect");
  });
});

test("the cooldown is a setting: 24 hours by default, 1 to 8,760, named in the refusal", () => {
  assert.equal(DEFAULT_SETTINGS.deniedKeyCooldownHours, 24);
  assert.ok(settingsPatchSchema.safeParse({ deniedKeyCooldownHours: 1 }).success);
  assert.ok(settingsPatchSchema.safeParse({ deniedKeyCooldownHours: 8_760 }).success);
  for (const bad of [0, 8_761, 1.5, "24"]) {
    const parsed = settingsPatchSchema.safeParse({ deniedKeyCooldownHours: bad });
    assert.equal(parsed.success, false, String(bad));
    assert.match(parsed.error!.issues[0]!.message, /Denied key cooldown \(hours\)/);
  }
});

test("the agent prints the fingerprint the queue shows: sha256 of the public key's SPKI DER", async () => {
  const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex");
  assert.equal(publicKeyFingerprint(pem), keyFingerprint(hash));
  assert.match(publicKeyFingerprint(pem), /^sha256:[0-9a-f]{64}$/);
  // A search finds it by what the agent printed, or by its first digits.
  assert.equal(keyHashQuery(publicKeyFingerprint(pem)), hash);
  assert.equal(keyHashQuery(`SHA256:${hash.slice(0, 8).toUpperCase()}`), hash.slice(0, 8));
  assert.equal(keyHashQuery(hash.match(/../g)!.join(":")), hash, "OpenSSL's colons");
  assert.equal(keyHashQuery("prod-eu-1"), null);
  assert.equal(keyHashQuery("abc"), null, "too short to mean a key");
});

test("one pending slot per name and key", () => {
  assert.equal(pendingSlot("prod-eu-1", "ab"), "prod-eu-1:ab");
  assert.notEqual(pendingSlot("prod-eu-1", "ab"), pendingSlot("prod-eu-1", "cd"));
});

test("the queue's cursor: what a page hands out comes back; anything else is refused", () => {
  const c = { firstSeenAt: new Date("2026-12-06T10:11:12.345Z"), id: "rr_abc123" };
  assert.deepEqual(decodeRequestCursor(encodeRequestCursor(c)), c);
  for (const bad of ["", "x", "123", "123~cl_abc", "-1~rr_a", "9".repeat(16) + "~rr_a", "1~rr_A", "1~rr_a'--"])
    assert.equal(decodeRequestCursor(bad), null, bad);
});
