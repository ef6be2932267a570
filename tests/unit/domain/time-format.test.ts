// One way to show time: one duration formatter, relative times built on it,
// absolute times in one format with the zone named.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  daysUntil,
  formatAgo,
  formatCountdown,
  formatDuration,
  formatIn,
  formatInstant,
  formatRelative,
  zoneName,
} from "@/lib/domain/time-format";
import { enrollmentChecklist } from "@/lib/domain/enrollment";
import { clockTime } from "@/components/ui/charts/chart-data";

describe("durations", () => {
  test("read at a glance, seconds only while they matter", () => {
    assert.equal(formatDuration(-5), "0 s");
    assert.equal(formatDuration(42_000), "42 s");
    assert.equal(formatDuration(90_000), "1 min 30 s");
    assert.equal(formatDuration(3 * 60_000 + 12_000), "3 min 12 s");
    assert.equal(formatDuration(5 * 60_000), "5 min");
    assert.equal(formatDuration(984_000), "16 min");
    assert.equal(formatDuration(12 * 60_000 + 59_000), "12 min");
    assert.equal(formatDuration(64 * 60_000), "1 h 4 min");
    assert.equal(formatDuration(2 * 3600_000), "2 h");
    assert.equal(formatDuration(50 * 3600_000), "2 d 2 h");
    assert.equal(formatDuration(30 * 86_400_000), "30 d");
  });

  test("relative times use the same formatter, on either side of now", () => {
    assert.equal(formatAgo(984_000), "16 min ago");
    assert.equal(formatIn(64 * 60_000), "in 1 h 4 min");
    assert.equal(formatIn(0), "expired");
    const now = Date.parse("2026-12-01T08:00:00Z");
    assert.equal(formatRelative(now - 42_000, now), "42 s ago");
    assert.equal(formatRelative(now + 3 * 3600_000 + 5 * 60_000, now), "in 3 h 5 min");
    assert.equal(formatRelative(now, now), "0 s ago");
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

  test("the enrollment checklist says the heartbeat's age the same way, never '984s ago'", () => {
    const now = new Date("2026-12-01T08:30:00Z");
    const items = enrollmentChecklist(
      {
        registeredAt: new Date("2026-11-01T00:00:00Z"),
        phase: "Active",
        lastHeartbeatAt: new Date(now.getTime() - 984_000),
        apiServerHealth: "ok",
        labels: {},
        groupCount: 1,
        fleetGroupCount: 1,
        desiredPolicyRevision: null,
        appliedPolicyRevision: null,
        logsReporting: true,
        metricsReporting: true,
      },
      [],
      now,
      180,
    );
    const heartbeat = items.find((i) => i.key === "heartbeat")!;
    assert.equal(heartbeat.state, "fail");
    assert.equal(heartbeat.reason, "last heartbeat 16 min ago (threshold 3 min)");
  });
});

describe("absolute times", () => {
  const at = "2026-12-01T08:14:03.250Z";

  test("one format, with the zone named", () => {
    assert.equal(formatInstant(at, "UTC"), "2026-12-01 08:14:03 UTC");
    assert.equal(formatInstant(at, "Europe/Berlin"), "2026-12-01 09:14:03 Europe/Berlin");
    assert.equal(formatInstant(at, "America/Los_Angeles"), "2026-12-01 00:14:03 America/Los_Angeles");
    assert.equal(formatInstant(Date.parse(at), "Asia/Kolkata"), "2026-12-01 13:44:03 Asia/Kolkata");
    assert.equal(formatInstant(new Date(at), "Etc/UTC"), "2026-12-01 08:14:03 UTC");
  });

  test("parts of the same format: date, clock, minute", () => {
    assert.equal(formatInstant(at, "Pacific/Auckland", "date"), "2026-12-01");
    assert.equal(formatInstant("2026-12-01T23:30:00Z", "Pacific/Auckland", "date"), "2026-12-02");
    assert.equal(formatInstant(at, "UTC", "time"), "08:14:03");
    assert.equal(formatInstant(at, "UTC", "minute"), "08:14");
    // Midnight is 00, never 24 (some engines' hour12:false says 24).
    assert.equal(formatInstant("2026-12-01T00:00:05Z", "UTC", "time"), "00:00:05");
    // Charts hand the tick's index as a second argument: it must not be read as a zone.
    const tick = clockTime as (t: number, index: number) => string;
    assert.match(tick(Date.parse("2026-12-01T17:05:00Z"), 13), /^\d{2}:05$/);
  });

  test("unparseable input is a dash, not 'Invalid Date'", () => {
    assert.equal(formatInstant("not a time", "UTC"), "—");
  });

  test("UTC has one name", () => {
    for (const z of ["UTC", "Etc/UTC", "GMT", "Etc/GMT"]) assert.equal(zoneName(z), "UTC");
    assert.equal(zoneName("Europe/Berlin"), "Europe/Berlin");
  });
});
