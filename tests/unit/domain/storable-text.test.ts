import assert from "node:assert/strict";
import { test } from "node:test";
import { emailSchema } from "@/lib/domain/email";
import { storableText, unstorableTextPath } from "@/lib/domain/storable-text";

test("NUL, other control characters and lone surrogates are kept as visible escapes", () => {
  assert.equal(storableText("a\u0000b", 63), "a\\u0000b");
  assert.equal(storableText("bell\u0007", 63), "bell\\u0007");
  assert.equal(storableText("x\ud800y", 63), "x\\ud800y");
  assert.equal(storableText("x\udc00", 63), "x\\udc00");
  assert.equal(storableText("tab\tand\nnewline", 63), "tab\tand\nnewline");
});

test("valid text is unchanged, pairs included, and it is cut on whole characters", () => {
  assert.equal(storableText("prod-eu-1", 63), "prod-eu-1");
  assert.equal(storableText("🚀🚀", 63), "🚀🚀");
  const cut = storableText("🚀".repeat(100), 63);
  assert.equal(Array.from(cut).length, 63);
  assert.equal(cut, "🚀".repeat(63), "no half of a pair at the end");
  assert.equal(storableText("a".repeat(70), 63).length, 63);
});

test("unstorableTextPath names the first value or key with a NUL or a lone surrogate", () => {
  assert.equal(unstorableTextPath({ name: "ok", nodePools: [{ name: "a" }, { name: "b\u0000" }] }), "nodePools.1.name");
  assert.equal(unstorableTextPath({ labels: { ["k\ud800"]: "v" } }), "labels");
  assert.equal(unstorableTextPath({ acks: [{ reason: "x\udc00" }] }), "acks.0.reason");
  assert.equal(unstorableTextPath("\u0000"), "(body)");
  assert.equal(
    unstorableTextPath({ name: "🚀 tab\t bell\u0007", n: 1, b: true, z: null }),
    null,
    "pairs and other controls are storable",
  );
});

test("an email with a control character is no email (a NUL in a sign-in failed the look-up on PostgreSQL)", () => {
  assert.equal(emailSchema.safeParse("admin@localhost").success, true);
  assert.equal(emailSchema.safeParse("odd\u0000@example.com").success, false);
  assert.equal(emailSchema.safeParse("odd@exa\u0007mple.com").success, false);
});
