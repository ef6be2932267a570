import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { daysUntil, formatCountdown, formatDuration, formatMemory, shortHex } from "@/components/ui/format";
import { formatRate } from "@/components/overview/registration-success";
import { selectorProblem } from "@/lib/domain/selector";

describe("formatters", () => {
  test("durations read at a glance", () => {
    assert.equal(formatDuration(-5), "0 s");
    assert.equal(formatDuration(42_000), "42 s");
    assert.equal(formatDuration(12 * 60_000 + 59_000), "12 min");
    assert.equal(formatDuration(3 * 3600_000 + 5 * 60_000), "3 h 5 min");
    assert.equal(formatDuration(2 * 3600_000), "2 h");
    assert.equal(formatDuration(50 * 3600_000), "2 d 2 h");
    // One format for every duration on screen: rollouts and the wizard use it too.
    assert.equal(formatDuration(3 * 60_000 + 12_000), "3 min");
    assert.equal(formatDuration(30 * 86_400_000), "30 d");
  });

  test("countdowns keep their width", () => {
    assert.equal(formatCountdown(42), "42 s");
    assert.equal(formatCountdown(65), "1 min 05 s");
  });

  test("days until an expiry, negative once past", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    assert.equal(daysUntil("2026-01-08T12:00:00Z", now), 7);
    assert.equal(daysUntil("2025-12-31T12:00:00Z", now), -1);
  });

  test("memory and hex", () => {
    assert.equal(formatMemory(null), "—");
    assert.equal(formatMemory(24), "24 GiB");
    assert.equal(formatMemory(2048), "2 TiB");
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
