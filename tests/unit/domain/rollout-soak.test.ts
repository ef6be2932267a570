// A stage passes only on evidence (lib/domain/rollouts.ts): every cluster it upgraded Ready on the
// target for the soak time; one that is not pauses the rollout during the soak and refuses approval.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  approvalProblem,
  createRolloutSchema,
  nextStep,
  SOAK_DEFAULT_SECONDS,
  stageEvidence,
  type CanaryFacts,
  type TickFacts,
} from "@/lib/domain/rollouts";

const now = new Date("2026-12-01T12:00:00Z");
const ago = (s: number) => new Date(now.getTime() - s * 1000);
const canary = (name: string, over: Partial<CanaryFacts> = {}): CanaryFacts => ({
  clusterId: `cl_${name}`,
  name,
  state: "Succeeded",
  health: "Ready",
  agentVersion: "1.5.0",
  readySince: ago(600),
  ...over,
});
const facts: TickFacts = {
  currentStage: 0,
  stageCount: 2,
  stageCompletedAt: ago(400),
  waitSeconds: 300,
  failureThreshold: 1,
  failureBaseline: 0,
  requireApproval: true,
};
const members = [
  { stage: 0, state: "Succeeded" },
  { stage: 1, state: "Pending" },
];

describe("a stage's evidence", () => {
  test("every upgraded cluster NotReady on the new version: the soak pauses and approval is refused", () => {
    const e = stageEvidence(
      "1.5.0",
      300,
      ["eu-1", "eu-2", "eu-3"].map((n) => canary(n, { health: "NotReady" })),
    );
    assert.equal(e.unhealthy, "canary eu-1: NotReady (and 2 more)");
    assert.deepEqual(nextStep(facts, members, e, now), {
      kind: "pause",
      cause: "canary",
      failures: 0,
      reason: "canary eu-1: NotReady (and 2 more) during the soak",
    });
    assert.match(approvalProblem(e) ?? "", /Not every canary is Ready on the new version/);
  });

  test("on another version, or removed, is not evidence either", () => {
    assert.equal(
      stageEvidence("1.5.0", 300, [canary("a", { agentVersion: "1.4.0" })]).unhealthy,
      "canary a: reports 1.4.0, not 1.5.0",
    );
    assert.equal(stageEvidence("1.5.0", 300, [canary("a", { health: null })]).unhealthy, "canary a: removed from the fleet");
  });

  test("the stage waits until each upgraded cluster has been Ready for the soak, counted from its own Ready since", () => {
    const fresh = stageEvidence("1.5.0", 300, [canary("a"), canary("b", { readySince: ago(100) })]);
    assert.deepEqual(fresh.soakedAt, new Date(now.getTime() + 200_000));
    assert.equal(nextStep(facts, members, fresh, now).kind, "wait");
    const soaked = stageEvidence("1.5.0", 300, [canary("a"), canary("b", { readySince: ago(300) })]);
    assert.equal(nextStep(facts, members, soaked, now).kind, "await-approval");
    assert.equal(approvalProblem(soaked), null);
    assert.equal(nextStep({ ...facts, requireApproval: false }, members, soaked, now).kind, "next-stage");
  });

  test("skipped and failed clusters are shown but not judged; a stage that upgraded none cannot be approved", () => {
    const e = stageEvidence("1.5.0", 300, [
      canary("s", { state: "Skipped", health: "NotReady", agentVersion: "1.4.0" }),
      canary("f", { state: "Failed", health: "NotReady" }),
    ]);
    assert.deepEqual(
      e.canaries.map((c) => [c.name, c.judged, c.problem]),
      [
        ["s", false, null],
        ["f", false, null],
      ],
    );
    assert.equal(e.unhealthy, null);
    assert.equal(e.noneUpgraded, true);
    assert.match(approvalProblem(e) ?? "", /No cluster of this stage was upgraded/);
  });

  test("the soak time defaults to longer than a heartbeat gap can hide, within bounds", () => {
    const base = { name: "r", targetVersion: "1.5.0", selector: "env=qa" };
    assert.equal(createRolloutSchema.parse(base).waitSeconds, SOAK_DEFAULT_SECONDS);
    assert.ok(SOAK_DEFAULT_SECONDS >= 180);
    assert.equal(createRolloutSchema.safeParse({ ...base, waitSeconds: -1 }).success, false);
    assert.equal(createRolloutSchema.safeParse({ ...base, waitSeconds: 86_401 }).success, false);
  });
});
