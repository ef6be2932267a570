import assert from "node:assert/strict";
import { test } from "node:test";
import { applyLabelChange, labelChangeProblem, planLabelChange, type ClusterLabels } from "@/lib/domain/bulk-labels";

const clusters: ClusterLabels[] = [
  { id: "a", name: "a", labels: { env: "prod", tier: "gold", region: "eu" } },
  { id: "b", name: "b", labels: { env: "prod", tier: "silver", region: "eu", foo: "1" } },
  { id: "c", name: "c", labels: { env: "prod", region: "" } },
];

test("applyLabelChange sets, changes and removes; own keys only", () => {
  assert.deepEqual(applyLabelChange({ a: "1", constructor: "x" }, { set: { b: "2" }, remove: ["constructor"] }), {
    a: "1",
    b: "2",
  });
  assert.deepEqual(applyLabelChange({ a: "1" }, { set: { a: "3" }, remove: [] }), { a: "3" });
});

test("the plan counts gains, changes, removals and unchanged clusters", () => {
  const plan = planLabelChange(clusters, { set: { tier: "gold" }, remove: ["foo"] }, ["region"]);
  assert.deepEqual(plan.summary, {
    matched: 3,
    changed: 2,
    unchanged: 1,
    gains: [{ key: "tier", value: "gold", count: 1 }],
    changes: [{ key: "tier", from: "silver", to: "gold", count: 1 }],
    removals: [{ key: "foo", count: 1 }],
  });
  assert.deepEqual(
    plan.rows.map((r) => r.id),
    ["b", "c"],
  );
  assert.deepEqual(plan.rows[0]!.after, { env: "prod", tier: "gold", region: "eu" });
  // c already lacked region (empty): the change does not make it worse, so it is not blocked.
  assert.deepEqual(plan.blocked, []);
});

test("a change that empties a required label on some cluster blocks it; removing one is refused up front", () => {
  const plan = planLabelChange(clusters, { set: { region: "" }, remove: [] }, ["region"]);
  assert.deepEqual(
    plan.blocked.map((b) => [b.id, b.missing]),
    [
      ["a", ["region"]],
      ["b", ["region"]],
    ],
  );
  assert.equal(labelChangeProblem({ set: {}, remove: ["region"] }, ["region"])?.kind, "required");
  assert.equal(labelChangeProblem({ set: { region: "" }, remove: [] }, ["region"])?.kind, "required");
  assert.equal(labelChangeProblem({ set: { x: "1" }, remove: ["x"] }, [])?.kind, "invalid");
  assert.equal(labelChangeProblem({ set: {}, remove: [] }, [])?.kind, "invalid");
  assert.equal(labelChangeProblem({ set: { region: "us" }, remove: ["foo"] }, ["region"]), null);
});
