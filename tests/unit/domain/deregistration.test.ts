import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  decide,
  DEREGISTRATION_ACTIONS,
  DRAIN_SAMPLE_KEEPALIVE_MS,
  isNewDrainSample,
  phaseFor,
  waitingFor,
  type DeregistrationStep,
  type WizardFacts,
} from "@/lib/domain/deregistration";

const facts = (over: Partial<WizardFacts> = {}): WizardFacts => ({
  step: null,
  pods: 10,
  disconnectAcked: false,
  disconnectWaitedSeconds: null,
  disconnectTimeoutSeconds: 120,
  ...over,
});

describe("deregistration state machine", () => {
  test("the happy path runs in order", () => {
    assert.deepEqual(decide(facts(), "start", false, undefined), { ok: true, next: "draining", forced: false });
    assert.deepEqual(decide(facts({ step: "draining", pods: 0 }), "confirm-workloads", false, undefined), {
      ok: true,
      next: "workloads-moved",
      forced: false,
    });
    assert.deepEqual(decide(facts({ step: "workloads-moved" }), "disconnect", false, undefined), {
      ok: true,
      next: "disconnecting",
      forced: false,
    });
    assert.deepEqual(decide(facts({ step: "disconnecting", disconnectAcked: true }), "remove", false, "decommissioned"), {
      ok: true,
      next: "removed",
      forced: false,
    });
  });

  test("removal needs a reason even when the agent acknowledged; out of order it is still invalid_transition", () => {
    const acked = facts({ step: "disconnecting", disconnectAcked: true });
    for (const reason of [undefined, "", "   "]) {
      const d = decide(acked, "remove", false, reason);
      assert.equal(d.ok, false);
      assert.equal(!d.ok && d.code, "invalid_request");
    }
    const early = decide(facts({ step: "draining" }), "remove", false, undefined);
    assert.equal(!early.ok && early.code, "invalid_transition");
  });

  test("every action out of order is invalid_transition", () => {
    const allowed: Record<string, string[]> = {
      null: ["start"],
      draining: ["confirm-workloads", "cancel"],
      "workloads-moved": ["disconnect", "cancel"],
      disconnecting: ["remove", "cancel"],
      removed: [],
      cancelled: ["start"],
    };
    for (const step of [
      null,
      "draining",
      "workloads-moved",
      "disconnecting",
      "removed",
      "cancelled",
    ] as (DeregistrationStep | null)[]) {
      for (const action of DEREGISTRATION_ACTIONS) {
        // With every wait satisfied (and a reason given), only the order decides.
        const d = decide(facts({ step, pods: 0, disconnectAcked: true }), action, false, "why");
        const expected = allowed[String(step)]!.includes(action);
        assert.equal(d.ok, expected, `${step} + ${action}`);
        if (!d.ok) assert.equal(d.code, "invalid_transition");
      }
    }
  });

  test("skipping the workloads wait needs force and a reason", () => {
    const draining = facts({ step: "draining", pods: 3 });
    assert.equal(decide(draining, "confirm-workloads", false, undefined).ok, false);
    const noReason = decide(draining, "confirm-workloads", true, "  ");
    assert.deepEqual(noReason.ok ? null : noReason.code, "invalid_request");
    assert.deepEqual(decide(draining, "confirm-workloads", true, "moved by hand"), {
      ok: true,
      next: "workloads-moved",
      forced: true,
    });
  });

  test("forcing removal is only allowed after the disconnect timeout", () => {
    const waiting = facts({ step: "disconnecting", disconnectWaitedSeconds: 30 });
    assert.equal(decide(waiting, "remove", false, undefined).ok, false);
    const early = decide(waiting, "remove", true, "agent is gone");
    assert.equal(early.ok, false);
    assert.match(early.ok ? "" : early.message, /120s/);
    assert.deepEqual(decide({ ...waiting, disconnectWaitedSeconds: 121 }, "remove", true, "agent is gone"), {
      ok: true,
      next: "removed",
      forced: true,
    });
  });

  test("what each step waits for, and the phase it puts the cluster in", () => {
    assert.match(waitingFor(facts({ step: "draining", pods: 7 }))!, /7 pods/);
    assert.match(waitingFor(facts({ step: "disconnecting" }))!, /acknowledge/);
    assert.match(waitingFor(facts({ step: "disconnecting", disconnectWaitedSeconds: 500 }))!, /forced/);
    assert.equal(waitingFor(facts({ step: "removed" })), null);
    assert.equal(phaseFor("draining"), "Draining");
    assert.equal(phaseFor("disconnecting"), "Deregistration");
    assert.equal(phaseFor("cancelled"), "Active");
  });
});

test("a drain's history records a first count, each change, and the same count once a keep-alive later", () => {
  const start = new Date("2026-12-01T10:00:00Z");
  const at = (s: number) => new Date(start.getTime() + s * 1000);
  const keepAlive = DRAIN_SAMPLE_KEEPALIVE_MS / 1000;
  assert.equal(isNewDrainSample(null, 40, at(5), start), true, "the first");
  assert.equal(isNewDrainSample(null, null, at(5), start), false, "no report yet");
  assert.equal(isNewDrainSample({ at: at(5), pods: 40 }, 40, at(10), start), false, "unchanged");
  assert.equal(isNewDrainSample({ at: at(5), pods: 40 }, 31, at(10), start), true, "changed");
  assert.equal(isNewDrainSample({ at: at(5), pods: 40 }, 40, at(5 + keepAlive), start), true, "keep-alive");
  assert.equal(isNewDrainSample({ at: at(-30), pods: 3 }, 3, at(1), start), true, "a point of an earlier drain does not count");
});
