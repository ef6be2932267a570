// Every registration result the protocol defines has a plain-words explanation in the console,
// with a kind (token, certificate, configuration, network, server) and something to do.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  agentAdvice,
  explainRegistrationResult,
  PROBLEM_KIND_LABEL,
  PROBLEM_KINDS,
  REGISTRATION_ERROR_CODES,
  REGISTRATION_RESULTS,
  objectiveClass,
  tallyRegistrations,
} from "../../../lib/domain/registration-errors";
import { ApiError, type ErrorCode } from "../../../lib/server/api/errors";

// The registration error codes of the agent protocol (docs/protocol.md), verbatim.
const PROTOCOL_CODES = [
  "invalid_request",
  "invalid_csr",
  "token_missing",
  "token_invalid",
  "token_expired",
  "token_revoked",
  "token_exhausted",
  "label_not_allowed",
  "missing_required_labels",
  "cluster_conflict",
  "registration_denied",
  "registration_request_expired",
  "payload_too_large",
  "rate_limited",
  "internal",
];

test("every protocol error code is explained, and the filter lists ok first", () => {
  for (const code of PROTOCOL_CODES) assert.ok(REGISTRATION_ERROR_CODES.includes(code as never), `${code} is described`);
  assert.equal(REGISTRATION_RESULTS[0], "ok");
  assert.deepEqual(REGISTRATION_RESULTS.slice(2), REGISTRATION_ERROR_CODES);
  assert.equal(REGISTRATION_RESULTS[1], "pending_approval", "a wait for approval, listed after ok");
  assert.equal(new Set(REGISTRATION_RESULTS).size, REGISTRATION_RESULTS.length, "no code twice");
});

test("ok is a success with nothing to do", () => {
  const ok = explainRegistrationResult("ok");
  assert.equal(ok.ok, true);
  assert.equal(ok.kind, null);
  assert.equal(ok.action, "");
  assert.match(ok.meaning, /joined the fleet/);
});

test("each failure says what kind of problem it is, what happened and what to do, in sentences", () => {
  for (const code of REGISTRATION_ERROR_CODES) {
    const e = explainRegistrationResult(code);
    assert.equal(e.code, code);
    assert.equal(e.ok, false);
    assert.ok(e.kind && PROBLEM_KINDS.includes(e.kind), `${code} has a known kind`);
    assert.ok(e.title.length > 0 && e.title.length <= 32, `${code}: short title "${e.title}"`);
    for (const text of [e.meaning, e.action]) {
      assert.match(text, /^[A-Z].*\.$/, `${code}: "${text}" is a sentence`);
      assert.doesNotMatch(text, new RegExp(`\\b${code}\\b`), `${code}: plain words, not the code again`);
    }
  }
});

test("the kinds match who has to act", () => {
  const kind = (code: string) => explainRegistrationResult(code).kind;
  for (const code of ["token_missing", "token_invalid", "token_expired", "token_revoked", "token_exhausted"]) {
    assert.equal(kind(code), "token", code);
  }
  assert.equal(kind("invalid_csr"), "certificate");
  assert.equal(kind("label_not_allowed"), "configuration");
  assert.equal(kind("missing_required_labels"), "configuration");
  assert.equal(kind("cluster_conflict"), "configuration");
  assert.equal(objectiveClass("pending_approval"), "waiting", "waiting for an operator is neither a refusal nor a failure");
  // The agent logs the same table's words when an operator's decision ends its registration.
  for (const code of ["registration_denied", "registration_request_expired"])
    assert.match(agentAdvice(code) ?? "", /stops asking/, code);
  assert.equal(kind("rate_limited"), "network");
  assert.equal(kind("internal"), "server");
  for (const k of PROBLEM_KINDS) assert.match(PROBLEM_KIND_LABEL[k], /problem$/);
});

test("token problems tell the reader to mint a new token; expiry is not confused with revocation", () => {
  for (const code of ["token_expired", "token_revoked", "token_exhausted"]) {
    assert.match(explainRegistrationResult(code).action, /[Mm]int a new token/, code);
  }
  assert.match(explainRegistrationResult("token_expired").meaning, /lifetime/);
  assert.match(explainRegistrationResult("token_revoked").meaning, /revoked/);
});

test("an unknown code is still explained honestly, never blank", () => {
  const e = explainRegistrationResult("teapot");
  assert.equal(e.ok, false);
  assert.equal(e.code, "teapot");
  assert.match(e.meaning, /"teapot"/);
  assert.ok(e.action.length > 0);
  // Inherited object keys are not codes.
  assert.equal(explainRegistrationResult("constructor").title, "Refused");
  assert.equal(explainRegistrationResult("toString").title, "Refused");
});

test("the objective counts failures of the system (5xx) only; refusals as designed are not failures", () => {
  for (const code of REGISTRATION_ERROR_CODES) {
    const status = new ApiError(code as ErrorCode, "x").status;
    if (code === "overloaded") continue; // deferred, below
    assert.equal(objectiveClass(code), status >= 500 ? "failure" : "refusal", `${code} (${status})`);
  }
  for (const code of [
    "token_exhausted",
    "token_expired",
    "missing_required_labels",
    "invalid_csr",
    "label_not_allowed",
    "rate_limited",
  ]) {
    assert.equal(objectiveClass(code), "refusal", code);
  }
  for (const code of ["internal", "database_unavailable", "unavailable"]) assert.equal(objectiveClass(code), "failure", code);
  assert.equal(objectiveClass("ok"), "success");
  // Refused for load: the agent retries and that try is recorded on its own; neither bucket.
  assert.equal(objectiveClass("overloaded"), "deferred");
  // A result nobody classified (a timeout recorded by a newer server) never flatters the objective.
  assert.equal(objectiveClass("timeout"), "failure");
  assert.equal(objectiveClass("constructor"), "failure");
});

test("the tally: refusals are shown beside the rate, failures of the system lower it", () => {
  const none = { total: 0, succeeded: 0, waiting: 0, refused: 0, failed: 0, deferred: 0 };
  assert.deepEqual(tallyRegistrations({}), { ...none, successRate: null });
  const t = tallyRegistrations({ ok: 980, token_exhausted: 15, token_expired: 4, internal: 1 });
  assert.deepEqual(t, { ...none, total: 1000, succeeded: 980, refused: 19, failed: 1, successRate: 0.999 });
  // Deferred for load: a third bucket, outside the rate (the retries are attempts of their own).
  const burst = tallyRegistrations({ ok: 177, overloaded: 123 });
  assert.deepEqual(burst, { ...none, total: 300, succeeded: 177, deferred: 123, successRate: 1 });
  // Waiting for an operator's approval: not refused, and nothing decided yet.
  const approvals = tallyRegistrations({ ok: 9, pending_approval: 6, internal: 1 });
  assert.deepEqual(approvals, { ...none, total: 16, succeeded: 9, waiting: 6, failed: 1, successRate: 0.9 });
  assert.equal(tallyRegistrations({ pending_approval: 3 }).successRate, null, "nothing decided yet");
  assert.equal(tallyRegistrations({ ok: 9, internal: 1, overloaded: 90 }).successRate, 0.9);
  assert.equal(tallyRegistrations({ overloaded: 5 }).successRate, null, "nothing decided yet");
  // Only refusals: the system did its job every time.
  assert.equal(tallyRegistrations({ token_expired: 50 }).successRate, 1);
  assert.equal(tallyRegistrations({ ok: 9, database_unavailable: 1 }).successRate, 0.9);
});

test("the agent's log line for a refused registration is the table's advice, and a name conflict points to re-enrolment", async () => {
  const { describeFailure, ProtocolError } = await import("../../../lib/agent/errors");
  const { agentAdvice } = await import("../../../lib/domain/registration-errors");
  const server = new URL("https://fleet.example.com:8443");
  for (const code of REGISTRATION_ERROR_CODES) {
    const advice = agentAdvice(code);
    if (!advice) continue;
    const f = describeFailure(new ProtocolError(400, code, ""), "register", server);
    assert.equal(f.message, advice, `${code}: the agent says what the table says`);
  }
  // docs/protocol.md, Re-registration: the name alone or the CA fingerprint is no proof; a kept key or a bound token is.
  const conflict = explainRegistrationResult("cluster_conflict");
  for (const text of [conflict.meaning + conflict.action, agentAdvice("cluster_conflict")!]) {
    assert.match(text, /re-enrol/i);
    assert.match(text, /bound to it/);
    assert.doesNotMatch(text, /different CA/);
  }
});
