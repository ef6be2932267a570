// The registration plan (lib/domain/registration-plan.ts): new, claim or re-registration, the
// refusals, and the facts it asks for only when they decide the outcome.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { planRegistration, type PlanCluster, type PlanFacts, type PlanToken } from "@/lib/domain/registration-plan";
import { parseSelector } from "@/lib/domain/selector";

const token: PlanToken = { allowedLabels: null, fixedLabels: {}, clusterId: null, exhausted: false, team: null };
const facts = (over: Partial<PlanFacts<PlanCluster>> = {}): PlanFacts<PlanCluster> => ({
  name: "edge-1",
  requested: { env: "prod" },
  token,
  existing: null,
  required: [],
  ...over,
});
const active: PlanCluster = { id: "cl_1", phase: "Active", labels: { env: "stage", team: "a" } };

describe("registration plan", () => {
  test("a new name with a use left is a new cluster with the agent's labels and the token's fixed ones", () => {
    const d = planRegistration(facts({ token: { ...token, fixedLabels: { site: "x" } } }));
    assert.deepEqual(d, { plan: { kind: "new", labels: { env: "prod", site: "x" }, proof: null, consumesUse: true } });
  });

  test("a used-up token registers no new cluster; required and scoped labels refuse", () => {
    assert.deepEqual(planRegistration(facts({ token: { ...token, exhausted: true } })), { refused: { code: "token_exhausted" } });
    const missing = planRegistration(facts({ required: ["team"] }));
    assert.equal("refused" in missing && missing.refused.code, "missing_required_labels");
    const outside = planRegistration(facts({ token: { ...token, allowedLabels: { env: ["dev"] } } }));
    assert.equal("refused" in outside && outside.refused.code, "label_not_allowed");
  });

  test("a token bound elsewhere asks for the bound cluster's name, then refuses", () => {
    const bound = facts({ token: { ...token, clusterId: "cl_other" } });
    assert.deepEqual(planRegistration(bound), { needs: "boundClusterName" });
    const d = planRegistration({ ...bound, boundClusterName: "other" });
    assert.equal("refused" in d && d.refused.code, "cluster_conflict");
  });

  test("a known name asks whether the key is kept; a kept key re-registers for free with the stored labels", () => {
    assert.deepEqual(planRegistration(facts({ existing: active })), { needs: "keptKey" });
    assert.deepEqual(planRegistration(facts({ existing: active, keptKey: true })), {
      plan: { kind: "reregister", existing: active, labels: { env: "stage", team: "a" }, proof: "keptKey", consumesUse: false },
    });
    const none = planRegistration(facts({ existing: active, keptKey: false }));
    assert.equal("refused" in none && none.refused.code, "cluster_conflict");
  });

  test("a bound token with a use left is proof enough (no key lookup) and spends the use", () => {
    const d = planRegistration(facts({ existing: active, token: { ...token, clusterId: "cl_1" } }));
    assert.equal("plan" in d && d.plan.proof, "boundToken");
    assert.equal("plan" in d && d.plan.consumesUse, true);
  });

  test("a pre-created cluster is claimed only with its bound token; a cluster being removed is refused", () => {
    const provisioning = { id: "cl_1", phase: "Provisioning", labels: { env: "preset" } };
    const unbound = planRegistration(facts({ existing: provisioning }));
    assert.equal("refused" in unbound && unbound.refused.code, "cluster_conflict");
    const claim = planRegistration(facts({ existing: provisioning, token: { ...token, clusterId: "cl_1" } }));
    assert.deepEqual("plan" in claim && claim.plan.labels, { env: "preset" });
    assert.equal("plan" in claim && claim.plan.kind, "claim");
    const draining = planRegistration(facts({ existing: { ...active, phase: "Draining" }, keptKey: true }));
    assert.equal("refused" in draining && draining.refused.code, "cluster_conflict");
  });

  test("a team's token lands clusters only in the team's scope, whatever the agent asks and however it registers", () => {
    const team = { name: "payments", selector: parseSelector("team=payments,env!=prod") };
    const teamToken = { ...token, team, fixedLabels: { team: "payments" } };
    const fresh = planRegistration(facts({ token: teamToken, requested: { env: "dev" } }));
    assert.deepEqual("plan" in fresh && fresh.plan.labels, { env: "dev", team: "payments" });
    // The fixed label holds the positive term; a negative one is the agent's to break, and is refused.
    const prod = planRegistration(facts({ token: teamToken, requested: { env: "prod" } }));
    assert.ok("refused" in prod);
    assert.equal(prod.refused.code, "label_not_allowed");
    assert.ok("details" in prod.refused);
    assert.deepEqual(prod.refused.details, { label: "env", value: "prod", teamScope: "team=payments,env!=prod" });
    assert.match(prod.refused.message, /team payments/);
    // A re-registration keeps the cluster's own labels: one now outside the scope is not carried back in.
    const moved = { id: "cl_1", phase: "Active", labels: { team: "data" } };
    const bare = planRegistration(facts({ existing: moved, keptKey: true, token: { ...token, team } }));
    assert.equal("refused" in bare && bare.refused.code, "label_not_allowed");
    const claim = planRegistration(
      facts({ existing: { ...moved, phase: "Provisioning" }, token: { ...token, team, clusterId: "cl_1" } }),
    );
    assert.equal("refused" in claim && claim.refused.code, "label_not_allowed");
  });
});
