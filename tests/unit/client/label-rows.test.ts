import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  describeChanges,
  labelChanges,
  labelsFromRows,
  newRow,
  removalBlocked,
  rowProblems,
  rowsFromLabels,
} from "@/components/clusters/label-rows";

const REQUIRED = ["env", "region"];

describe("label editor rows", () => {
  test("rows are sorted by key, and a missing required key gets a row to fill", () => {
    const rows = rowsFromLabels({ team: "a", env: "prod" }, REQUIRED);
    assert.deepEqual(
      rows.map((r) => [r.key, r.value]),
      [
        ["env", "prod"],
        ["team", "a"],
        ["region", ""],
      ],
    );
  });

  test("required rows cannot be removed, and say why", () => {
    assert.match(removalBlocked(newRow("env", "prod"), REQUIRED) ?? "", /"env" is a required label/);
    assert.equal(removalBlocked(newRow("team", "a"), REQUIRED), null);
  });

  test("Kubernetes syntax problems are reported per field, live", () => {
    const bad = newRow("-bad", "ok");
    const badValue = newRow("team", "no spaces");
    const prefixed = newRow("example.com/owner", "platform_team.1");
    const problems = rowProblems([bad, badValue, prefixed], REQUIRED);
    assert.match(problems.get(bad.id)?.key ?? "", /^Name must start and end with a letter or digit/);
    assert.match(problems.get(badValue.id)?.value ?? "", /^Value must start and end/);
    assert.equal(problems.has(prefixed.id), false);
  });

  test("duplicates, keyless values and empty required values are problems; an untouched new row is not", () => {
    const a = newRow("team", "a");
    const b = newRow("team", "b");
    const keyless = newRow("", "x");
    const blank = newRow();
    const region = newRow("region", "");
    const problems = rowProblems([a, b, keyless, blank, region], REQUIRED);
    assert.equal(problems.get(a.id)?.key, "This key is used twice.");
    assert.equal(problems.get(keyless.id)?.key, "Enter a key.");
    assert.equal(problems.has(blank.id), false);
    assert.equal(problems.get(region.id)?.value, "A required label needs a value.");
  });

  test("the saved label set trims and skips empty rows; changes are summarised", () => {
    const labels = labelsFromRows([newRow(" env ", " prod "), newRow(), newRow("tier", "")]);
    assert.deepEqual(labels, { env: "prod", tier: "" });
    const changes = labelChanges({ env: "dev", old: "x" }, labels);
    assert.deepEqual(changes, { added: ["tier"], removed: ["old"], changed: ["env"] });
    assert.equal(describeChanges(changes), "1 added, 1 changed, 1 removed");
    assert.equal(describeChanges(labelChanges(labels, labels)), "");
    // Keys named like Object.prototype members are plain keys, not already-present ones.
    assert.deepEqual(labelChanges({ env: "dev" }, { env: "dev", constructor: "x", toString: "y" }), {
      added: ["constructor", "toString"],
      removed: [],
      changed: [],
    });
  });
});
