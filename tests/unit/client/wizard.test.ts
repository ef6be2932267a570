import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEREGISTRATION_ACTIONS } from "@/lib/domain/deregistration";
import { AGENT_REMOVE_COMMAND } from "@/lib/domain/agent-kube-calls";
import { clusterCleanup } from "@/components/clusters/deregister/cluster-cleanup";
import { WIZARD_DIALOGS } from "@/components/clusters/deregister/wizard-dialogs";

describe("the wizard's dialog table", () => {
  const rows = Object.entries(WIZARD_DIALOGS);

  test("every action the wizard offers has a confirmation", () => {
    const confirmed = new Set(rows.map(([, row]) => row.request.action));
    for (const action of DEREGISTRATION_ACTIONS) assert.ok(confirmed.has(action), action);
  });

  test("a required reason (a forced skip, a removal) is asked for with an example; nothing else forces", () => {
    for (const [kind, row] of rows) {
      assert.equal(row.request.force === true, kind.startsWith("force-"), kind);
      const required = row.request.force === true || row.reasonRequired === true;
      assert.equal(row.reasonHint !== undefined, required, kind);
    }
  });

  test("removal, forced or not, needs the cluster's name typed and a reason (the server refuses one without)", () => {
    for (const kind of ["remove", "force-remove"] as const) {
      const row = WIZARD_DIALOGS[kind];
      assert.equal(row.typeName, true, kind);
      assert.ok(row.request.force === true || row.reasonRequired === true, kind);
    }
    for (const [kind, row] of rows) if (row.request.action !== "remove") assert.notEqual(row.typeName, true, kind);
  });

  test("titles and descriptions name the cluster and its state", () => {
    assert.equal(WIZARD_DIALOGS.remove.title("prod-eu-1"), "Remove prod-eu-1 from the fleet?");
    const d = { step: "disconnecting" as const, workloads: { pods: 3, atStart: 10, history: [] } };
    assert.match(WIZARD_DIALOGS["force-workloads"].description(d), /still reports 3 pods/);
    assert.match(WIZARD_DIALOGS.cancel.description(d), /already told to disconnect/);
    assert.doesNotMatch(WIZARD_DIALOGS.cancel.description({ ...d, step: "draining" }), /already told to disconnect/);
  });
});

describe("the last step's in-cluster cleanup", () => {
  const forcedRemove = {
    step: "disconnecting",
    action: "remove",
    by: "ops@example.com",
    reason: "agent gone",
    at: "2026-01-01T00:00:00.000Z",
  };

  test("is offered only once the cluster is removed", () => {
    for (const step of [null, "draining", "workloads-moved", "disconnecting", "cancelled"] as const)
      assert.equal(clusterCleanup({ step, forced: [] }), null, String(step));
    assert.ok(clusterCleanup({ step: "removed", forced: [] }));
  });

  test("gives the agent's own removal command and names everything the manifest left behind", () => {
    const c = clusterCleanup({ step: "removed", forced: [] })!;
    assert.equal(c.command, AGENT_REMOVE_COMMAND);
    assert.equal(c.agentDisconnected, true);
    assert.deepEqual(
      c.leftovers.map((l) => l.key),
      ["deployment", "namespace", "service-account", "rbac", "secrets"],
    );
    assert.match(c.leftovers.find((l) => l.key === "deployment")!.detail, /scaled to 0/);
  });

  test("after a forced removal says the agent may still run and still holds its key and bindings", () => {
    const c = clusterCleanup({ step: "removed", forced: [forcedRemove] })!;
    assert.equal(c.agentDisconnected, false);
    assert.match(c.leftovers[0]!.detail, /may still be running/);
    assert.match(c.leftovers.find((l) => l.key === "secrets")!.detail, /private key/);
    assert.match(c.leftovers.find((l) => l.key === "rbac")!.what, /ClusterRoleBindings/);
    // A forced workloads step alone does not mean the agent missed the disconnect.
    const workloadsOnly = clusterCleanup({ step: "removed", forced: [{ ...forcedRemove, action: "confirm-workloads" }] })!;
    assert.equal(workloadsOnly.agentDisconnected, true);
  });
});
