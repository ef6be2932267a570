// Words for whatever was thrown or answered (lib/domain/error-text.ts): never "[object Object]".
import assert from "node:assert/strict";
import { test } from "node:test";
import { errorText, reasonText } from "@/lib/domain/error-text";

test("a sentence stays a sentence; an object gives the sentence it carries, else its JSON, bounded", () => {
  assert.equal(reasonText("drain timed out"), "drain timed out");
  assert.equal(reasonText({ message: "pods left" }), "pods left");
  assert.equal(reasonText({ message: { message: "nested" } }), "nested");
  assert.equal(reasonText({ code: 502, details: ["x"] }), '{"code":502,"details":["x"]}');
  assert.equal(reasonText(42), "42");
  assert.equal(reasonText(null), "");
  assert.equal(reasonText(undefined), "");
  assert.equal(reasonText({}), "an empty object");
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(reasonText(cyclic), "an empty object");
  assert.equal(reasonText(new Map([["a", 1]])), "a Map");
  const long = reasonText({ text: "x".repeat(2_000) });
  assert.equal(long.length, 500);
  assert.ok(long.endsWith("…"));
});

test("errors: an Error's message (its name when empty); anything else as a reason, never [object Object]", () => {
  assert.equal(errorText(new Error("connect ECONNREFUSED")), "connect ECONNREFUSED");
  assert.equal(errorText(new TypeError("")), "TypeError");
  assert.equal(errorText({ code: "ECONNRESET", message: "socket hang up" }), "socket hang up");
  assert.equal(errorText(undefined), "unknown error");
  for (const thrown of [{}, { a: { b: 1 } }, [{}], Object.create(null)])
    assert.doesNotMatch(errorText(thrown), /\[object /, JSON.stringify(thrown));
});
