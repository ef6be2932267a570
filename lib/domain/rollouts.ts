import { z } from "zod";
import { checkSelectorText } from "./selector";
import { parseVersion } from "./semver";
import type { HealthStatus } from "./status";

// Staged agent upgrades: a canary of N clusters, then batches by percentage of the rest.

/** The soak time's default and ceiling (a rollout's `waitSeconds`). */
export const SOAK_DEFAULT_SECONDS = 300;
export const SOAK_MAX_SECONDS = 86_400;

export const stageSpecSchema = z.union([
  z.object({ name: z.string().trim().min(1).max(40), clusters: z.number().int().min(1).max(100_000) }).strict(),
  z.object({ name: z.string().trim().min(1).max(40), percent: z.number().int().min(1).max(100) }).strict(),
]);
export type StageSpec = z.infer<typeof stageSpecSchema>;

export const createRolloutSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    targetVersion: z.string().refine((v) => parseVersion(v) !== null, "must be a semantic version"),
    selector: z.string().trim().superRefine(checkSelectorText).optional(),
    groupId: z.string().min(1).optional(),
    stages: z
      .array(stageSpecSchema)
      .min(1)
      .max(20)
      .default([
        { name: "canary", clusters: 1 },
        { name: "rest", percent: 100 },
      ]),
    maxUnavailable: z.number().int().min(1).max(10_000).default(1),
    /**
     * The soak: after a stage's last cluster settles, every cluster it upgraded must stay Ready on
     * the target for this long (each counted from when it was last seen becoming Ready) before the
     * stage passes. Longer than the NotReady threshold, so a cluster that stops heartbeating is
     * seen within it.
     */
    waitSeconds: z.number().int().min(0).max(SOAK_MAX_SECONDS).default(SOAK_DEFAULT_SECONDS),
    failureThreshold: z.number().int().min(1).max(10_000).default(1),
    /** how long one cluster may take to come back Ready on the target version */
    clusterTimeoutSeconds: z.number().int().min(10).max(86_400).default(600),
    /** explicit clusters (the Versions page's "upgrade these", the cluster list's bulk action) */
    clusterIds: z.array(z.string().min(1).max(100)).min(1).max(10_000).optional(),
    /** plan NotReady and draining clusters in too (by default they are listed as skipped) */
    includeUnready: z.boolean().default(false),
    /** wait for an operator's approval before each stage after the first */
    requireApproval: z.boolean().default(false),
    /**
     * The team (name or id) the rollout belongs to: it plans and ever upgrades only clusters in
     * that team's scope. Needed from someone without the fleet operator role who operates in
     * several teams; left out by a fleet operator, the rollout is the fleet's.
     */
    team: z.string().trim().min(1).max(100).optional(),
  })
  .strict()
  .refine((r) => [r.selector, r.groupId, r.clusterIds].filter(Boolean).length === 1, {
    message: "name exactly one of a selector, a groupId or clusterIds",
    path: ["selector"],
  });
export type CreateRolloutInput = z.infer<typeof createRolloutSchema>;

/**
 * Assigns clusters (in the given, stable order) to stages: a `clusters` stage takes that many,
 * a `percent` stage takes that share of all clusters (rounded up, at least one), the last stage
 * takes whatever is left. Stages that would be empty are dropped.
 */
export function planStages(clusterIds: string[], stages: StageSpec[]): { name: string; clusterIds: string[] }[] {
  const plan: { name: string; clusterIds: string[] }[] = [];
  let next = 0;
  stages.forEach((s, i) => {
    const last = i === stages.length - 1;
    const want = last
      ? clusterIds.length - next
      : "clusters" in s
        ? s.clusters
        : Math.max(1, Math.ceil((s.percent / 100) * clusterIds.length));
    const ids = clusterIds.slice(next, next + want);
    next += ids.length;
    if (ids.length) plan.push({ name: s.name, clusterIds: ids });
  });
  return plan;
}

// The rollout as a pure state machine: which operator action is allowed in which state, how an
// upgrading cluster settles, and what one tick of a running rollout does next. The server
// (lib/server/rollouts/) reads the facts, asks here, and writes the answer conditionally.

export const ROLLOUT_STATES = ["Running", "Paused", "AwaitingApproval", "Completed", "Aborted"] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];
/** A cluster belongs to at most one rollout in these states. */
export const UNFINISHED_ROLLOUT_STATES = ["Running", "Paused", "AwaitingApproval"] as const;
export const ROLLOUT_ACTIONS = ["pause", "resume", "abort", "approve"] as const;
export type RolloutAction = (typeof ROLLOUT_ACTIONS)[number];

/** One cluster in a rollout: Pending -> Upgrading -> Succeeded | Failed, or Skipped. */
export const MEMBER_STATES = ["Pending", "Upgrading", "Succeeded", "Failed", "Skipped"] as const;
export type MemberState = (typeof MEMBER_STATES)[number];
const FINISHED_MEMBER_STATES: ReadonlySet<string> = new Set(["Succeeded", "Failed", "Skipped"]);
export const memberFinished = (state: string) => FINISHED_MEMBER_STATES.has(state);

export type ActionDecision = { ok: true; next: RolloutState } | { ok: false; code: "invalid_transition"; message: string };

const FROM: Record<RolloutAction, readonly string[]> = {
  pause: ["Running"],
  resume: ["Paused"],
  abort: UNFINISHED_ROLLOUT_STATES,
  approve: ["AwaitingApproval"],
};
const TO: Record<RolloutAction, RolloutState> = { pause: "Paused", resume: "Running", abort: "Aborted", approve: "Running" };

export function decideRolloutAction(state: string, action: RolloutAction): ActionDecision {
  if (!FROM[action].includes(state))
    return { ok: false, code: "invalid_transition", message: `Cannot ${action} a rollout that is ${state}.` };
  return { ok: true, next: TO[action] };
}

export type Outcome = { state: "Succeeded" | "Failed"; error: string | null };

/** How the upgrade directive was acknowledged: failed (with the agent's reason and code), or not yet / done. */
export type UpgradeAck = { failedReason: string | null; failedCode: string | null } | null;

/**
 * The upgrade the agent handed over instead of carrying it out (its Deployment belongs to a GitOps
 * controller): the agent's sentence naming the image to put in the repository, or null.
 */
export function upgradeHandoff(ack: UpgradeAck): string | null {
  return ack?.failedCode === "gitops_managed" && ack.failedReason ? ack.failedReason : null;
}

/**
 * An upgrading cluster's outcome, or null while it still may come back: Succeeded once it is
 * Ready on the target version; Failed when removed, when the agent acknowledged the upgrade as
 * failed (a rollback, a reverted Deployment) or past the per-cluster timeout. An upgrade handed to
 * a GitOps repository has no timeout: it is done when the new version heartbeats.
 */
export function settleUpgrade(
  rollout: { targetVersion: string; clusterTimeoutSeconds: number },
  member: { startedAt: Date | null; ack?: UpgradeAck },
  cluster: { agentVersion: string | null; ready: boolean } | null,
  now: Date,
): Outcome | null {
  if (!cluster) return { state: "Failed", error: "the cluster was removed during the upgrade" };
  if (cluster.agentVersion === rollout.targetVersion && cluster.ready) return { state: "Succeeded", error: null };
  if (upgradeHandoff(member.ack ?? null)) return null;
  if (member.ack?.failedReason) return { state: "Failed", error: `the agent could not upgrade: ${member.ack.failedReason}` };
  if (member.startedAt && now.getTime() - member.startedAt.getTime() > rollout.clusterTimeoutSeconds * 1000) {
    return {
      state: "Failed",
      error: `not Ready on ${rollout.targetVersion} within ${rollout.clusterTimeoutSeconds}s (reports ${cluster.agentVersion ?? "nothing"})`,
    };
  }
  return null;
}

export type TickFacts = {
  currentStage: number;
  stageCount: number;
  stageCompletedAt: Date | null;
  waitSeconds: number;
  failureThreshold: number;
  /** failures already accepted by a resume */
  failureBaseline: number;
  /** an operator approves each next stage */
  requireApproval: boolean;
};

/**
 * One cluster of the current stage as evidence that the stage is healthy: its member state, its
 * live health (null: removed from the fleet), the version it reports and since when it has been
 * Ready on it (the later of its upgrade settling and its last recorded move to Ready).
 */
export type CanaryFacts = {
  clusterId: string;
  name: string | null;
  state: string;
  health: HealthStatus | null;
  agentVersion: string | null;
  readySince: Date | null;
};

export type CanaryCheck = CanaryFacts & {
  /** upgraded in this stage, so its health is the stage's evidence (skipped and failed ones are not) */
  judged: boolean;
  /** why a judged cluster is not evidence of a healthy stage, or null */
  problem: string | null;
};

export type StageEvidence = {
  canaries: CanaryCheck[];
  /** "canary eu-1: NotReady" (and how many more), or null while every judged cluster is Ready on the target */
  unhealthy: string | null;
  /** no cluster of the stage was upgraded: nothing shows the new version works */
  noneUpgraded: boolean;
  /** when the last judged cluster will have soaked (null: none judged, or one not Ready) */
  soakedAt: Date | null;
};

/**
 * The evidence a finished stage offers: each upgraded cluster must be Ready on the target version;
 * the stage has soaked once each has been so for `soakSeconds`.
 */
export function stageEvidence(targetVersion: string, soakSeconds: number, members: CanaryFacts[]): StageEvidence {
  const canaries = members.map((m): CanaryCheck => {
    const judged = m.state === "Succeeded";
    let problem: string | null = null;
    if (judged) {
      if (m.health === null) problem = "removed from the fleet";
      else if (m.health !== "Ready") problem = m.health;
      else if (m.agentVersion !== targetVersion) problem = `reports ${m.agentVersion ?? "no version"}, not ${targetVersion}`;
    }
    return { ...m, judged, problem };
  });
  const judged = canaries.filter((c) => c.judged);
  const failing = judged.filter((c) => c.problem);
  const first = failing[0];
  const unhealthy = first
    ? `canary ${first.name ?? first.clusterId}: ${first.problem}${failing.length > 1 ? ` (and ${failing.length - 1} more)` : ""}`
    : null;
  let soakedAt: Date | null = null;
  if (judged.length && !failing.length && judged.every((c) => c.readySince)) {
    const latest = Math.max(...judged.map((c) => c.readySince!.getTime()));
    soakedAt = new Date(latest + soakSeconds * 1000);
  }
  return { canaries, unhealthy, noneUpgraded: judged.length === 0, soakedAt };
}

/**
 * Why approving the next stage is refused now, or null: every upgraded cluster of the stage must
 * be Ready on the target (an operator may override with a reason, audited as such).
 */
export function approvalProblem(evidence: StageEvidence): string | null {
  if (evidence.unhealthy) return `Not every canary is Ready on the new version: ${evidence.unhealthy}.`;
  if (evidence.noneUpgraded) return "No cluster of this stage was upgraded, so nothing shows the new version works.";
  return null;
}

/** What a running rollout does next, once its upgrading clusters have been settled. */
export type RolloutStep =
  /** too many failures, or a canary not Ready on the target during the soak */
  | { kind: "pause"; cause: "failures" | "canary"; failures: number; reason: string }
  /** the current stage just finished: note when, then wait */
  | { kind: "stage-finished" }
  | { kind: "wait" }
  | { kind: "next-stage"; stage: number }
  /** the next stage waits for an operator's approval */
  | { kind: "await-approval" }
  | { kind: "complete" }
  /** start more upgrades in the current stage (within max unavailable and the upgrade window) */
  | { kind: "upgrade" };

export function nextStep(
  r: TickFacts,
  members: { stage: number; state: string }[],
  evidence: StageEvidence,
  now: Date,
): RolloutStep {
  const failures = members.filter((m) => m.state === "Failed").length - r.failureBaseline;
  if (failures >= r.failureThreshold)
    return {
      kind: "pause",
      cause: "failures",
      failures,
      reason: `${failures} cluster(s) failed to upgrade (threshold ${r.failureThreshold})`,
    };
  if (!members.filter((m) => m.stage === r.currentStage).every((m) => memberFinished(m.state))) return { kind: "upgrade" };
  if (!r.stageCompletedAt) return { kind: "stage-finished" };
  // The soak: a canary that stops being Ready on the target stops the rollout here, as Argo
  // Rollouts' analysis and Flagger's checks do, rather than letting the next stage start.
  if (evidence.unhealthy) return { kind: "pause", cause: "canary", failures, reason: `${evidence.unhealthy} during the soak` };
  if (now.getTime() - r.stageCompletedAt.getTime() < r.waitSeconds * 1000) return { kind: "wait" };
  if (evidence.soakedAt && now < evidence.soakedAt) return { kind: "wait" };
  if (r.currentStage + 1 >= r.stageCount) return { kind: "complete" };
  return r.requireApproval ? { kind: "await-approval" } : { kind: "next-stage", stage: r.currentStage + 1 };
}

/** How many more clusters may start upgrading now. */
export function upgradeSlots(maxUnavailable: number, groupMaxUnavailable: number | null, members: { state: string }[]): number {
  const limit = Math.min(maxUnavailable, groupMaxUnavailable ?? Infinity);
  return Math.max(0, limit - members.filter((m) => m.state === "Upgrading").length);
}

/**
 * A pending cluster at its turn, by its lifecycle phase (null: removed) and health: start its
 * upgrade, skip it, or wait. A NotReady cluster is skipped rather than started: its agent would
 * not pick the upgrade up, and the stage would wait the whole per-cluster timeout for it.
 */
export function pendingMemberAction(
  phase: string | null,
  health: HealthStatus,
): { kind: "start" } | { kind: "wait" } | { kind: "skip"; error: string } {
  // Leaving the fleet (or never joined): nothing to upgrade.
  if (phase === null) return { kind: "skip", error: "cluster removed" };
  if (phase === "Draining" || phase === "Deregistration" || phase === "Provisioning")
    return { kind: "skip", error: `phase ${phase}` };
  // e.g. still Registration: wait for it to become Active
  if (phase !== "Active") return { kind: "wait" };
  return health === "NotReady" ? { kind: "skip", error: "NotReady when its turn came" } : { kind: "start" };
}

/** Stage number of the clusters left out of the plan (NotReady or draining when it was made). */
export const NOT_PLANNED_STAGE = -1;

/** Why a cluster is left out of a new plan by default, or null to plan it in. */
export function planExclusion(c: { phase: string; health: HealthStatus }): string | null {
  if (c.phase === "Draining" || c.phase === "Deregistration") return "draining";
  if (c.health === "NotReady") return "NotReady";
  return null;
}

/**
 * The clusters a new rollout plans over and those it lists as skipped: NotReady and draining
 * clusters are skipped unless `includeUnready`. Order is kept.
 */
export function splitPlanTargets<C extends { id: string; phase: string; health: HealthStatus }>(
  clusters: C[],
  includeUnready: boolean,
): { planned: C[]; skipped: (C & { reason: string })[] } {
  const planned: C[] = [];
  const skipped: (C & { reason: string })[] = [];
  for (const c of clusters) {
    const reason = includeUnready ? null : planExclusion(c);
    if (reason) skipped.push({ ...c, reason });
    else planned.push(c);
  }
  return { planned, skipped };
}

/**
 * Seconds until the rollout is likely done, from the mean time its succeeded clusters took
 * (null until one has): each remaining stage upgrades its unfinished clusters in batches of
 * `maxUnavailable`, with `waitSeconds` between stages. Time spent awaiting approval is not known.
 */
export function estimateRemaining(
  r: { state: string; currentStage: number; stageCount: number; maxUnavailable: number; waitSeconds: number },
  members: { stage: number; state: string; startedAt: Date | null; finishedAt: Date | null }[],
): { seconds: number; perClusterSeconds: number; observed: number } | null {
  if (r.state === "Completed" || r.state === "Aborted") return null;
  const took = members
    .filter((m) => m.state === "Succeeded" && m.startedAt && m.finishedAt)
    .map((m) => (m.finishedAt!.getTime() - m.startedAt!.getTime()) / 1000);
  if (!took.length) return null;
  const perCluster = took.reduce((a, b) => a + b, 0) / took.length;
  let seconds = 0;
  for (let stage = r.currentStage; stage < r.stageCount; stage++) {
    const left = members.filter((m) => m.stage === stage && (m.state === "Pending" || m.state === "Upgrading")).length;
    seconds += Math.ceil(left / Math.max(1, r.maxUnavailable)) * perCluster;
    if (stage + 1 < r.stageCount) seconds += r.waitSeconds;
  }
  return { seconds: Math.round(seconds), perClusterSeconds: Math.round(perCluster), observed: took.length };
}

/** A stage as the console shows it. */
export function stageState(index: number, currentStage: number, members: { state: string }[]): "done" | "current" | "waiting" {
  if (index < currentStage || (members.length > 0 && members.every((m) => memberFinished(m.state)))) return "done";
  return index === currentStage ? "current" : "waiting";
}
