// Label keys come from users and must never index plain objects, and the pure
// rules of re-registration: which certificates' keys prove an agent, and which
// proof a re-registration rests on.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { labelsToSend, unreachableRequiredLabels } from "@/lib/domain/agent-manifest";
import { labelsSchema, labelValue, missingRequiredLabels } from "@/lib/domain/labels";
import { keptKeyCandidates, reregistrationProof } from "@/lib/domain/reregistration";
import { allowedLabelsSchema, labelOutsideScope, mergeFixedLabels, mintTokenSchema, relabelForToken } from "@/lib/domain/tokens";

// Keys that name members of Object.prototype: valid Kubernetes label keys all of them.
const PROTOTYPE_KEYS = ["constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];

describe("label keys named like Object.prototype members", () => {
  test("a scope that does not name them refuses them (never `allowed.includes is not a function`)", () => {
    for (const key of PROTOTYPE_KEYS) {
      assert.deepEqual(labelOutsideScope({ [key]: "x" }, { env: "*" }), { key, value: "x" }, key);
      assert.deepEqual(labelOutsideScope({ [key]: "x" }, {}), { key, value: "x" }, key);
    }
  });

  test("a scope that names them allows exactly what it says", () => {
    for (const key of PROTOTYPE_KEYS) {
      assert.equal(labelOutsideScope({ [key]: "a" }, { [key]: ["a", "b"] }), null, key);
      assert.deepEqual(labelOutsideScope({ [key]: "c" }, { [key]: ["a", "b"] }), { key, value: "c" }, key);
      assert.equal(labelOutsideScope({ [key]: "anything" }, { [key]: "*" }), null, key);
    }
  });

  test("fixed labels with such keys stamp, and only conflict with a real different value", () => {
    for (const key of PROTOTYPE_KEYS) {
      // An agent that does not send the key is no conflict (`key in {}` is true for these).
      assert.deepEqual(mergeFixedLabels({ env: "prod" }, { [key]: "v" }), {
        labels: { env: "prod", [key]: "v" },
        conflict: null,
      });
      assert.equal(mergeFixedLabels({ [key]: "v" }, { [key]: "v" }).conflict, null, key);
      assert.equal(mergeFixedLabels({ [key]: "w" }, { [key]: "v" }).conflict, key);
    }
  });

  test("required labels with such keys are missing until a cluster really has them", () => {
    assert.deepEqual(missingRequiredLabels({ env: "prod" }, ["constructor", "toString", "env"]), ["constructor", "toString"]);
    assert.deepEqual(missingRequiredLabels({ constructor: "x", toString: "y" }, ["constructor", "toString"]), []);
    assert.equal(labelValue({}, "constructor"), undefined);
    assert.equal(labelValue({ constructor: "x" }, "constructor"), "x");
  });

  test("the agent command's suggested labels treat them as plain keys", () => {
    const suggested = labelsToSend({ requiredLabels: ["constructor"], fixedLabels: {}, allowedLabels: { env: "*" } });
    assert.deepEqual(suggested, [{ key: "constructor", value: "", choices: [] }]);
    assert.deepEqual(labelsToSend({ requiredLabels: ["toString"], fixedLabels: {}, allowedLabels: { toString: ["a"] } }), [
      { key: "toString", value: "a", choices: ["a"] },
    ]);
    assert.deepEqual(
      labelsToSend({ requiredLabels: ["constructor"], fixedLabels: { constructor: "x" }, allowedLabels: null }),
      [],
    );
    assert.deepEqual(unreachableRequiredLabels({ requiredLabels: ["constructor"], fixedLabels: {}, allowedLabels: {} }), [
      "constructor",
    ]);
  });

  test("schemas accept them as keys and refuse __proto__ with a message instead of dropping it", () => {
    const labels = labelsSchema.safeParse(JSON.parse('{"constructor":"a","toString":"b"}'));
    assert.equal(labels.success, true);
    assert.deepEqual({ ...labels.data }, { constructor: "a", toString: "b" });
    const scope = allowedLabelsSchema.safeParse(JSON.parse('{"constructor":["a"],"hasOwnProperty":"*"}'));
    assert.equal(scope.success, true);

    for (const [schema, text] of [
      [labelsSchema, '{"__proto__":"x"}'],
      [allowedLabelsSchema, '{"__proto__":["x"]}'],
    ] as const) {
      const parsed = schema.safeParse(JSON.parse(text));
      assert.equal(parsed.success, false, text);
      assert.match(parsed.error!.issues.map((i) => i.message).join(" "), /__proto__/);
    }
    const mint = mintTokenSchema.safeParse(JSON.parse('{"name":"t","fixedLabels":{"__proto__":"x"}}'));
    assert.equal(mint.success, false);
    assert.deepEqual(mint.error!.issues[0]!.path, ["fixedLabels"]);
  });
});

describe("re-registration labels", () => {
  test("the cluster keeps its labels, the token's fixed labels go over them, the scope judges the result", () => {
    const stored = { env: "prod", region: "eu", team: "payments" };
    assert.deepEqual(relabelForToken(stored, { fixedLabels: { env: "dev" }, allowedLabels: null }), {
      labels: { env: "dev", region: "eu", team: "payments" },
      outside: null,
    });
    // A scoped token cannot carry a cluster that has a label outside its scope.
    assert.deepEqual(relabelForToken(stored, { fixedLabels: {}, allowedLabels: { env: "*", region: ["eu"] } }).outside, {
      key: "team",
      value: "payments",
    });
    // Presets win over what an agent sends when it claims; fixed labels over both.
    assert.deepEqual(
      relabelForToken({ region: "eu" }, { fixedLabels: { env: "dev" }, allowedLabels: null }, { region: "us", tier: "1" }).labels,
      { region: "eu", tier: "1", env: "dev" },
    );
    assert.deepEqual(relabelForToken({ constructor: "a" }, { fixedLabels: {}, allowedLabels: { env: "*" } }).outside, {
      key: "constructor",
      value: "a",
    });
  });
});

describe("re-registration proof", () => {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, s));
  const cert = (serial: string, s: number, revokedReason: string | null = null, revoked = revokedReason !== null) => ({
    serial,
    createdAt: at(s),
    revokedAt: revoked ? at(s + 1) : null,
    notAfter: new Date(at(s).getTime() + 90 * 86_400_000),
    revokedReason,
  });
  const renewal = { now: at(30), graceDays: 30 };
  const serials = (cs: { serial: string }[]) => cs.map((c) => c.serial).sort();

  test("the current certificates and the newest one count; older superseded ones and operator revocations do not", () => {
    // Rotation in flight: two current certificates.
    assert.deepEqual(serials(keptKeyCandidates([cert("old", 1), cert("new", 2)], renewal)), ["new", "old"]);
    // A re-registration whose answer was lost superseded the agent's certificate with the newest one.
    assert.deepEqual(serials(keptKeyCandidates([cert("a", 1, "superseded"), cert("b", 2, "superseded")], renewal)), ["b"]);
    // An operator's revocation (or deregistration) ends the key's standing.
    assert.deepEqual(keptKeyCandidates([cert("a", 1, "superseded"), cert("b", 2, "revoked")], renewal), []);
    assert.deepEqual(keptKeyCandidates([cert("a", 1, "deregistered")], renewal), []);
    // Revoked without a recorded reason: not trusted.
    assert.deepEqual(keptKeyCandidates([cert("a", 1, null, true)], renewal), []);
    assert.deepEqual(keptKeyCandidates([], renewal), []);
  });

  test("a certificate expired longer ago than the renewal grace proves nothing; within the grace it does", () => {
    const day = 86_400_000;
    const lapsed = { ...cert("a", 1), notAfter: new Date(renewal.now.getTime() - 31 * day) };
    const recent = { ...cert("b", 2), notAfter: new Date(renewal.now.getTime() - 29 * day) };
    assert.deepEqual(serials(keptKeyCandidates([lapsed, recent], renewal)), ["b"]);
    assert.deepEqual(keptKeyCandidates([recent], { ...renewal, graceDays: 0 }), []);
  });

  test("a bound token with a use left is spent first; then the kept key; else no proof", () => {
    assert.deepEqual(reregistrationProof({ boundToCluster: true, tokenHasUses: true, keptKey: true }), {
      proof: "boundToken",
      consumesUse: true,
    });
    assert.deepEqual(reregistrationProof({ boundToCluster: true, tokenHasUses: false, keptKey: true }), {
      proof: "keptKey",
      consumesUse: false,
    });
    assert.deepEqual(reregistrationProof({ boundToCluster: false, tokenHasUses: false, keptKey: true }), {
      proof: "keptKey",
      consumesUse: false,
    });
    assert.deepEqual(reregistrationProof({ boundToCluster: true, tokenHasUses: false, keptKey: false }), {
      refused: "token_exhausted",
    });
    // The attack: any valid token, the right name and fingerprint, but neither key nor binding.
    assert.deepEqual(reregistrationProof({ boundToCluster: false, tokenHasUses: true, keptKey: false }), { refused: "no_proof" });
  });
});
