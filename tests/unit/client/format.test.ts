import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatMemory, shortHex } from "@/components/ui/format";
import { formatRate } from "@/components/overview/registration-success";
import { selectorProblem } from "@/lib/domain/selector";

describe("formatters", () => {
  test("memory and hex", () => {
    assert.equal(formatMemory(null), "—");
    assert.equal(formatMemory(24), "24 GiB");
    assert.equal(formatMemory(2048), "2 TiB");
    assert.equal(formatMemory(1536), "1.5 TiB");
    assert.equal(formatMemory(767.94), "767.9 GiB");
    assert.equal(shortHex("sha256:0123456789abcdef0123", 8), "sha256:01234567…");
    assert.equal(shortHex("abcd", 8), "abcd");
  });

  test("a success rate just under the objective never rounds up to it", () => {
    assert.equal(formatRate(0.99899), "99.89 %");
    assert.equal(formatRate(1), "100 %");
    assert.equal(formatRate(0.5), "50.00 %");
  });

  test("selector fields check kubectl syntax with the shared parser", () => {
    assert.equal(selectorProblem("env=prod,region in (eu,us),!legacy"), null);
    assert.match(selectorProblem("region in (eu") ?? "", /^unbalanced/);
  });
});
