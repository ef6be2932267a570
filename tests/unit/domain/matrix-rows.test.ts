import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compatibilityMatrixSchema, shippedMatrix } from "@/lib/domain/compatibility";
import { draftOf, draftProblems, matrixOf } from "@/lib/domain/matrix-rows";

const shipped = shippedMatrix({ version: "0.1.0", agentVersion: "1.4.0" });

describe("the compatibility matrix as a table", () => {
  it("round-trips the shipped matrix without a problem", () => {
    const d = draftOf(shipped);
    assert.equal(draftProblems(d).ok, true);
    assert.deepEqual(compatibilityMatrixSchema.parse(matrixOf(d, shipped)), shipped);
  });

  it("puts each problem beside its cell", () => {
    const d = draftOf(shipped);
    d.rows[1] = { agentVersions: "1.3.x", kubernetes: "~>1.28" };
    d.rows.push({ agentVersions: "", kubernetes: ">=1.29.0" });
    const p = draftProblems(d);
    assert.equal(p.ok, false);
    assert.equal(p.rows[0]!.kubernetes, null);
    assert.match(p.rows[1]!.kubernetes!, /e\.g\. >=1\.28\.0 <1\.32\.0/);
    assert.match(p.rows.at(-1)!.agentVersions!, /^Give the agent versions of this row/);
    assert.equal(p.rows.at(-1)!.kubernetes, null);
  });

  it("refuses a recommended version no agent could run or no row covers", () => {
    assert.match(
      draftProblems({ ...draftOf(shipped), recommendedAgentVersion: "2.1.0" }).recommendedAgentVersion!,
      /not within the accepted/,
    );
    const d = { ...draftOf(shipped), rows: [{ agentVersions: "1.3.x", kubernetes: ">=1.27.0" }] };
    assert.match(draftProblems(d).recommendedAgentVersion!, /No row covers 1\.4\.0/);
    assert.match(draftProblems({ ...draftOf(shipped), rows: [] }).table!, /at least one row/);
  });
});
