import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEREGISTRATION_ACTIONS } from "@/lib/domain/deregistration";
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
