// The one table of request body limits (lib/domain/body-limits.ts): which row a request target
// falls under, however it is spelt, and how a Content-Length is judged.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BODY_LIMITS, bodyLimitFor, declaresMoreThan, JSON_BODY_BYTES } from "@/lib/domain/body-limits";

describe("body limits", () => {
  test("the agent protocol keeps its documented 64 KiB, and every row is bounded", () => {
    assert.equal(bodyLimitFor("/api/agent/v1/register"), 64 * 1024);
    assert.equal(JSON_BODY_BYTES, 64 * 1024);
    for (const row of BODY_LIMITS) assert.ok(row.bytes > 0 && row.bytes <= 1024 * 1024, row.prefix);
    assert.equal(BODY_LIMITS[BODY_LIMITS.length - 1]!.prefix, "/", "the last row is everything else");
  });

  test("each target falls under its family's row, however it is spelt", () => {
    const of = (prefix: string) => BODY_LIMITS.find((r) => r.prefix === prefix)!.bytes;
    for (const target of [
      "/api/auth/callback/credentials?x=1",
      "//api//auth/callback/credentials",
      "/API/Auth/signin",
      "\\api\\auth\\csrf",
      "/api/v1/registration-tokens",
      "/login",
      "",
      "*",
    ]) {
      assert.ok(bodyLimitFor(target) > 0 && bodyLimitFor(target) <= 1024 * 1024, target);
    }
    assert.equal(bodyLimitFor("/API/AUTH/csrf"), of("/api/auth/"));
    assert.equal(bodyLimitFor("/api/v1/clusters"), of("/api/"));
    assert.equal(bodyLimitFor("/clusters"), of("/"));
  });

  test("a Content-Length over the limit is refused; none, or one within it, is not", () => {
    assert.equal(declaresMoreThan(undefined, 10), false);
    assert.equal(declaresMoreThan("", 10), false);
    assert.equal(declaresMoreThan("10", 10), false);
    assert.equal(declaresMoreThan("11", 10), true);
    assert.equal(declaresMoreThan("52428800", JSON_BODY_BYTES), true);
    assert.equal(declaresMoreThan(["11"], 10), true);
    assert.equal(declaresMoreThan("1e9", 10), true);
    assert.equal(declaresMoreThan("lots", 10), true);
  });
});
