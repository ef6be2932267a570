// Every registration result the protocol defines has a plain-words explanation in the console,
// with a kind (token, certificate, configuration, network, server) and something to do.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  explainRegistrationResult,
  PROBLEM_KIND_LABEL,
  PROBLEM_KINDS,
  REGISTRATION_ERROR_CODES,
  REGISTRATION_RESULTS,
} from "../../lib/domain/registration-errors";

// The registration error codes of PROTOCOL.md, verbatim.
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
  "payload_too_large",
  "rate_limited",
  "internal",
];

test("every protocol error code is explained, and the filter lists ok first", () => {
  for (const code of PROTOCOL_CODES) assert.ok(REGISTRATION_ERROR_CODES.includes(code as never), `${code} is described`);
  assert.equal(REGISTRATION_RESULTS[0], "ok");
  assert.deepEqual(REGISTRATION_RESULTS.slice(1), REGISTRATION_ERROR_CODES);
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
