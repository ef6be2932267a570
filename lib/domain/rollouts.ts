import { z } from "zod";
import { checkSelectorText } from "./selector";
import { parseVersion } from "./semver";

// Staged agent upgrades: a canary of N clusters, then batches by percentage of the rest.

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
    waitSeconds: z.number().int().min(0).max(86_400).default(60),
    failureThreshold: z.number().int().min(1).max(10_000).default(1),
    /** how long one cluster may take to come back Ready on the target version */
    clusterTimeoutSeconds: z.number().int().min(10).max(86_400).default(600),
  })
  .strict()
  .refine((r) => !!r.selector !== !!r.groupId, { message: "name either a selector or a groupId", path: ["selector"] });
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

export type UpgradeWindow = { days: string[]; start: string; end: string };
export const upgradeWindowsSchema = z
  .array(
    z
      .object({
        days: z.array(z.enum(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])).min(1),
        start: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
        end: z.string().regex(/^([01]\d|2[0-4]):[0-5]\d$/),
      })
      .strict(),
  )
  .max(20);

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** Inside one of the (UTC) windows? No windows means always. */
export function inUpgradeWindow(windows: UpgradeWindow[] | null | undefined, now: Date): boolean {
  if (!windows || windows.length === 0) return true;
  const day = DAYS[now.getUTCDay()]!;
  const minutes = now.getUTCHours() * 60 + now.getUTCMinutes();
  const toMin = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
  return windows.some((w) => w.days.includes(day as never) && minutes >= toMin(w.start) && minutes < toMin(w.end));
}

// The rollout as a pure state machine: which operator action is allowed in which state, how an
// upgrading cluster settles, and what one tick of a running rollout does next. The server
// (lib/server/rollouts/) reads the facts, asks here, and writes the answer conditionally.

export const ROLLOUT_STATES = ["Running", "Paused", "Completed", "Aborted"] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];
/** A cluster belongs to at most one rollout in these states. */
export const UNFINISHED_ROLLOUT_STATES = ["Running", "Paused"] as const;
export const ROLLOUT_ACTIONS = ["pause", "resume", "abort"] as const;
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
};
const TO: Record<RolloutAction, RolloutState> = { pause: "Paused", resume: "Running", abort: "Aborted" };

export function decideRolloutAction(state: string, action: RolloutAction): ActionDecision {
  if (!FROM[action].includes(state))
    return { ok: false, code: "invalid_transition", message: `Cannot ${action} a rollout that is ${state}.` };
  return { ok: true, next: TO[action] };
}

export type Outcome = { state: "Succeeded" | "Failed"; error: string | null };

/**
 * An upgrading cluster's outcome, or null while it still may come back: Succeeded once it is
 * Ready on the target version, Failed when removed or past the per-cluster timeout.
 */
export function settleUpgrade(
  rollout: { targetVersion: string; clusterTimeoutSeconds: number },
  member: { startedAt: Date | null },
  cluster: { agentVersion: string | null; ready: boolean } | null,
  now: Date,
): Outcome | null {
  if (!cluster) return { state: "Failed", error: "the cluster was removed during the upgrade" };
  if (cluster.agentVersion === rollout.targetVersion && cluster.ready) return { state: "Succeeded", error: null };
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
};

/** What a running rollout does next, once its upgrading clusters have been settled. */
export type RolloutStep =
  | { kind: "pause"; failures: number; reason: string }
  /** the current stage just finished: note when, then wait */
  | { kind: "stage-finished" }
  | { kind: "wait" }
  | { kind: "next-stage"; stage: number }
  | { kind: "complete" }
  /** start more upgrades in the current stage (within max unavailable and the upgrade window) */
  | { kind: "upgrade" };

export function nextStep(r: TickFacts, members: { stage: number; state: string }[], now: Date): RolloutStep {
  const failures = members.filter((m) => m.state === "Failed").length - r.failureBaseline;
  if (failures >= r.failureThreshold)
    return {
      kind: "pause",
      failures,
      reason: `${failures} cluster(s) failed to upgrade (threshold ${r.failureThreshold})`,
    };
  if (!members.filter((m) => m.stage === r.currentStage).every((m) => memberFinished(m.state))) return { kind: "upgrade" };
  if (!r.stageCompletedAt) return { kind: "stage-finished" };
  if (now.getTime() - r.stageCompletedAt.getTime() < r.waitSeconds * 1000) return { kind: "wait" };
  return r.currentStage + 1 >= r.stageCount ? { kind: "complete" } : { kind: "next-stage", stage: r.currentStage + 1 };
}

/** How many more clusters may start upgrading now. */
export function upgradeSlots(maxUnavailable: number, groupMaxUnavailable: number | null, members: { state: string }[]): number {
  const limit = Math.min(maxUnavailable, groupMaxUnavailable ?? Infinity);
  return Math.max(0, limit - members.filter((m) => m.state === "Upgrading").length);
}

/** A pending cluster, by its lifecycle phase (null: removed): start its upgrade, skip it, or wait. */
export function pendingMemberAction(
  phase: string | null,
): { kind: "start" } | { kind: "wait" } | { kind: "skip"; error: string } {
  // Leaving the fleet (or never joined): nothing to upgrade.
  if (phase === null) return { kind: "skip", error: "cluster removed" };
  if (phase === "Draining" || phase === "Deregistration" || phase === "Provisioning")
    return { kind: "skip", error: `phase ${phase}` };
  // e.g. still Registration: wait for it to become Active
  return phase === "Active" ? { kind: "start" } : { kind: "wait" };
}

/** A stage as the console shows it. */
export function stageState(index: number, currentStage: number, members: { state: string }[]): "done" | "current" | "waiting" {
  if (index < currentStage || (members.length > 0 && members.every((m) => memberFinished(m.state)))) return "done";
  return index === currentStage ? "current" : "waiting";
}
