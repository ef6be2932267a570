// The registration request's state machine (lib/domain/registration-request-states.ts): each
// trigger applies in one state only, every state is reachable from pending, and only pending
// waits for a decision.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DECIDED_STATES,
  dueToExpire,
  nextRequestState,
  REGISTRATION_REQUEST_STATES,
  REQUEST_TRIGGERS,
  WAITING_STATE,
} from "@/lib/domain/registration-request-states";

describe("registration request states", () => {
  test("the allowed transitions, by state and trigger", () => {
    const table = Object.fromEntries(
      REGISTRATION_REQUEST_STATES.map((s) => [
        s,
        Object.fromEntries(REQUEST_TRIGGERS.flatMap((t) => (nextRequestState(s, t) ? [[t, nextRequestState(s, t)]] : []))),
      ]),
    );
    assert.deepEqual(table, {
      pending: { approve: "approved", deny: "denied", expire: "expired" },
      approved: { collect: "completed" },
      completed: {},
      denied: {},
      expired: {},
    });
  });

  test("every state is reached from pending", () => {
    const reached = new Set<string>([WAITING_STATE]);
    for (let grew = true; grew;) {
      grew = false;
      for (const s of [...reached])
        for (const t of REQUEST_TRIGGERS) {
          const next = nextRequestState(s, t);
          if (next && !reached.has(next)) {
            reached.add(next);
            grew = true;
          }
        }
    }
    assert.deepEqual([...reached].sort(), [...REGISTRATION_REQUEST_STATES].sort());
  });

  test("an unknown state takes no trigger; decided states are all but pending", () => {
    for (const t of REQUEST_TRIGGERS) assert.equal(nextRequestState("archived", t), null);
    assert.deepEqual(DECIDED_STATES, ["approved", "completed", "denied", "expired"]);
  });

  test("a pending request is due to expire at its expiresAt, a decided one never", () => {
    const now = new Date("2026-12-06T12:00:00Z");
    assert.equal(dueToExpire({ state: "pending", expiresAt: now }, now), true);
    assert.equal(dueToExpire({ state: "pending", expiresAt: new Date(now.getTime() + 1) }, now), false);
    assert.equal(dueToExpire({ state: "denied", expiresAt: new Date(0) }, now), false);
  });
});
