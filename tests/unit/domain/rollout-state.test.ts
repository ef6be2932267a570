// The rollout state machine (lib/domain/rollouts.ts): operator actions by state, how an upgrading
// cluster settles, and what a tick of a running rollout does next.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  decideRolloutAction,
  nextStep,
  pendingMemberAction,
  ROLLOUT_ACTIONS,
  ROLLOUT_STATES,
  settleUpgrade,
  upgradeHandoff,
  stageEvidence,
  stageState,
  upgradeSlots,
  type TickFacts,
} from "@/lib/domain/rollouts";

const now = new Date("2026-12-01T12:00:00Z");
const ago = (s: number) => new Date(now.getTime() - s * 1000);

describe("operator actions", () => {
  test("pause from Running, resume from Paused, approve while awaiting approval, abort from any; nothing once finished", () => {
    const allowed = Object.fromEntries(
      ROLLOUT_STATES.map((s) => [s, ROLLOUT_ACTIONS.filter((a) => decideRolloutAction(s, a).ok)]),
    );
    assert.deepEqual(allowed, {
      Running: ["pause", "abort"],
      Paused: ["resume", "abort"],
      AwaitingApproval: ["abort", "approve"],
      Completed: [],
      Aborted: [],
    });
    assert.deepEqual(decideRolloutAction("Running", "pause"), { ok: true, next: "Paused" });
    assert.deepEqual(decideRolloutAction("Paused", "resume"), { ok: true, next: "Running" });
    assert.deepEqual(decideRolloutAction("Paused", "abort"), { ok: true, next: "Aborted" });
    assert.deepEqual(decideRolloutAction("Completed", "pause"), {
      ok: false,
      code: "invalid_transition",
      message: "Cannot pause a rollout that is Completed.",
    });
  });
});

describe("settling an upgrading cluster", () => {
  const rollout = { targetVersion: "1.5.0", clusterTimeoutSeconds: 600 };
  test("Succeeded once Ready on the target version", () => {
    assert.deepEqual(settleUpgrade(rollout, { startedAt: ago(10) }, { agentVersion: "1.5.0", ready: true }, now), {
      state: "Succeeded",
      error: null,
    });
  });
  test("still waiting: on the target but not Ready, or not yet on it, within the timeout", () => {
    assert.equal(settleUpgrade(rollout, { startedAt: ago(10) }, { agentVersion: "1.5.0", ready: false }, now), null);
    assert.equal(settleUpgrade(rollout, { startedAt: ago(600) }, { agentVersion: "1.4.0", ready: true }, now), null);
  });
  test("Failed past the timeout, or when the cluster is gone", () => {
    assert.deepEqual(settleUpgrade(rollout, { startedAt: ago(601) }, { agentVersion: "1.4.0", ready: true }, now), {
      state: "Failed",
      error: "not Ready on 1.5.0 within 600s (reports 1.4.0)",
    });
    assert.equal(settleUpgrade(rollout, { startedAt: ago(1) }, null, now)?.state, "Failed");
  });
  test("Failed at once when the agent acknowledged the upgrade as failed (a rollback, a reverted Deployment)", () => {
    const ack = { failedReason: "the Deployment was reverted (GitOps?): it runs a:1.4.0 instead of a:1.5.0", failedCode: null };
    assert.deepEqual(settleUpgrade(rollout, { startedAt: ago(10), ack }, { agentVersion: "1.4.0", ready: true }, now), {
      state: "Failed",
      error: "the agent could not upgrade: the Deployment was reverted (GitOps?): it runs a:1.4.0 instead of a:1.5.0",
    });
  });
  test("handed to a GitOps repository: no timeout, Succeeded once the new version heartbeats", () => {
    const ack = {
      failedReason: "upgrade through your repository: image a:1.5.0 (Argo CD manages the Deployment)",
      failedCode: "gitops_managed",
    };
    assert.equal(upgradeHandoff(ack), ack.failedReason);
    assert.equal(upgradeHandoff({ ...ack, failedCode: null }), null);
    assert.equal(settleUpgrade(rollout, { startedAt: ago(6000), ack }, { agentVersion: "1.4.0", ready: true }, now), null);
    assert.deepEqual(settleUpgrade(rollout, { startedAt: ago(6000), ack }, { agentVersion: "1.5.0", ready: true }, now), {
      state: "Succeeded",
      error: null,
    });
  });
});

describe("the next step of a running rollout", () => {
  const facts = (over: Partial<TickFacts> = {}): TickFacts => ({
    currentStage: 0,
    stageCount: 2,
    stageCompletedAt: null,
    waitSeconds: 60,
    failureThreshold: 1,
    failureBaseline: 0,
    requireApproval: false,
    ...over,
  });
  const m = (stage: number, state: string) => ({ stage, state });
  // No cluster to judge: the soak's evidence neither holds nor pauses (tests/unit/domain/rollout-soak.test.ts).
  const quiet = stageEvidence("1.5.0", 60, []);

  test("failures at the threshold pause it; failures accepted by a resume do not count", () => {
    const members = [m(0, "Failed"), m(1, "Pending")];
    assert.deepEqual(nextStep(facts(), members, quiet, now), {
      kind: "pause",
      cause: "failures",
      failures: 1,
      reason: "1 cluster(s) failed to upgrade (threshold 1)",
    });
    assert.equal(nextStep(facts({ failureBaseline: 1 }), members, quiet, now).kind, "stage-finished");
  });
  test("an unfinished stage starts more upgrades", () => {
    assert.equal(nextStep(facts(), [m(0, "Upgrading"), m(0, "Succeeded")], quiet, now).kind, "upgrade");
    assert.equal(nextStep(facts(), [m(0, "Pending")], quiet, now).kind, "upgrade");
  });
  test("a finished stage is noted, waited for, then the next one starts; after the last, complete", () => {
    const done = [m(0, "Succeeded"), m(0, "Skipped"), m(1, "Pending")];
    assert.equal(nextStep(facts(), done, quiet, now).kind, "stage-finished");
    assert.equal(nextStep(facts({ stageCompletedAt: ago(59) }), done, quiet, now).kind, "wait");
    assert.deepEqual(nextStep(facts({ stageCompletedAt: ago(60) }), done, quiet, now), { kind: "next-stage", stage: 1 });
    assert.deepEqual(nextStep(facts({ currentStage: 1, stageCompletedAt: ago(60) }), [m(1, "Succeeded")], quiet, now), {
      kind: "complete",
    });
  });
  test("slots: the smaller of the rollout's and the group's max unavailable, less those upgrading", () => {
    const members = [{ state: "Upgrading" }, { state: "Pending" }, { state: "Pending" }];
    assert.equal(upgradeSlots(3, null, members), 2);
    assert.equal(upgradeSlots(3, 2, members), 1);
    assert.equal(upgradeSlots(1, null, [...members, { state: "Upgrading" }]), 0);
  });
  test("a pending cluster starts when Active, waits while registering, is skipped when leaving or gone", () => {
    assert.deepEqual(pendingMemberAction("Active", "Ready"), { kind: "start" });
    assert.deepEqual(pendingMemberAction("Active", "Pending"), { kind: "start" });
    assert.deepEqual(pendingMemberAction("Registration", "Ready"), { kind: "wait" });
    assert.deepEqual(pendingMemberAction("Draining", "Ready"), { kind: "skip", error: "phase Draining" });
    assert.deepEqual(pendingMemberAction("Provisioning", "Pending"), { kind: "skip", error: "phase Provisioning" });
    assert.deepEqual(pendingMemberAction(null, "Pending"), { kind: "skip", error: "cluster removed" });
  });
  test("a pending cluster NotReady at its turn is skipped, not started", () => {
    assert.deepEqual(pendingMemberAction("Active", "NotReady"), { kind: "skip", error: "NotReady when its turn came" });
  });
  test("with approval required, a finished stage waits for approval instead of moving on; the last one completes", () => {
    const done = [m(0, "Succeeded"), m(1, "Pending")];
    assert.deepEqual(nextStep(facts({ requireApproval: true, stageCompletedAt: ago(60) }), done, quiet, now), {
      kind: "await-approval",
    });
    assert.equal(nextStep(facts({ requireApproval: true, stageCompletedAt: ago(59) }), done, quiet, now).kind, "wait");
    assert.equal(
      nextStep(facts({ requireApproval: true, currentStage: 1, stageCompletedAt: ago(60) }), [m(1, "Succeeded")], quiet, now)
        .kind,
      "complete",
    );
  });
  test("approve is allowed only while awaiting approval; abort also then", () => {
    assert.deepEqual(decideRolloutAction("AwaitingApproval", "approve"), { ok: true, next: "Running" });
    assert.equal(decideRolloutAction("Running", "approve").ok, false);
    assert.equal(decideRolloutAction("Paused", "approve").ok, false);
    assert.deepEqual(decideRolloutAction("AwaitingApproval", "abort"), { ok: true, next: "Aborted" });
    assert.equal(decideRolloutAction("AwaitingApproval", "pause").ok, false);
  });
  test("stages as shown: done before the current one or when all finished, then current, then waiting", () => {
    assert.equal(stageState(0, 1, [{ state: "Failed" }]), "done");
    assert.equal(stageState(1, 1, [{ state: "Upgrading" }]), "current");
    assert.equal(stageState(2, 1, [{ state: "Pending" }]), "waiting");
    assert.equal(stageState(2, 1, [{ state: "Skipped" }]), "done");
  });
});
