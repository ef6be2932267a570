import assert from "node:assert/strict";
import { test } from "node:test";
import { storableText } from "@/lib/domain/storable-text";

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
