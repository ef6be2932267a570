import assert from "node:assert/strict";
import { test } from "node:test";
import { leaseVerdict, type LeaseClaim } from "@/lib/domain/lease-holder";

const at = (iso: string | null) => (iso ? new Date(iso) : null);
const claim = (holder: string, transitions: number, createdAt: string | null = "2026-12-06T08:00:00Z"): LeaseClaim => ({
  holder,
  transitions,
  createdAt: at(createdAt),
});

test("a restart, a takeover and a re-created Lease are never refused; an older holder always is", () => {
  const onRecord = claim("pod-a", 3);
  const cases: [string, LeaseClaim | null, LeaseClaim, string][] = [
    ["first claim", null, claim("pod-a", 0), "newer"],
    ["the same agent restarting in its pod", onRecord, claim("pod-a", 3), "same"],
    ["a takeover", onRecord, claim("pod-b", 4), "newer"],
    ["the holder before the takeover", claim("pod-b", 4), claim("pod-a", 3), "stale"],
    ["one count, another holder", onRecord, claim("pod-b", 3), "stale"],
    ["a re-created Lease, counting anew", onRecord, claim("pod-b", 0, "2026-12-06T09:00:00Z"), "newer"],
    ["the old Lease's holder after a re-creation", claim("pod-b", 0, "2026-12-06T09:00:00Z"), claim("pod-a", 9), "stale"],
    ["an earlier claim without its creation time", claim("pod-a", 3, null), claim("pod-a", 3), "newer"],
    ["a claim without a creation time: by count", onRecord, claim("pod-a", 2, null), "stale"],
  ];
  for (const [name, stored, reported, want] of cases) assert.equal(leaseVerdict(stored, reported), want, name);
});
