// What a planned rollout will do, in the words both the rollout form and its start confirmation
// use: how many clusters it upgrades and about how long that takes. Pure, no React: one function
// per number, so the form and the dialog cannot count differently.

/** The plan's counts these read (the answer of POST /api/v1/rollouts/plan). */
export type PlanCounts = {
  /** clusters planned into stages (NotReady and draining ones left out unless included) */
  planned: number;
  /** planned clusters already on the target version: finished at once, nothing to upgrade */
  alreadyOnTarget: number;
  /** per stage, in order: the clusters it takes, and of those the ones it upgrades */
  stages: { name: string; clusters: number; upgrades: number }[];
};

/** "N clusters will be upgraded": planned, less those already on the target version. */
export function clustersToUpgrade(plan: Pick<PlanCounts, "planned" | "alreadyOnTarget">): number {
  return Math.max(0, plan.planned - plan.alreadyOnTarget);
}

/**
 * A restarted agent's pod: the new image pulled and started, before its first heartbeat. A guess
 * that holds for a cached or small image; the estimate says it is one.
 */
export const AGENT_RESTART_SECONDS = 30;
/** How often the rollout job starts the next clusters (lib/server/jobs/schedule.ts, rollout-tick). */
export const ROLLOUT_TICK_SECONDS = 2;

/**
 * One cluster's upgrade before anyone has measured one: the directive rides the cluster's next
 * heartbeat (up to one interval after the rollout job starts it), the agent restarts on the new
 * version, and the first heartbeat that reports it (up to another interval) finishes it.
 */
export function upgradeSecondsPerCluster(heartbeatIntervalSeconds: number): number {
  return ROLLOUT_TICK_SECONDS + 2 * heartbeatIntervalSeconds + AGENT_RESTART_SECONDS;
}

export type RolloutEta = {
  /** about how long from start to the last cluster upgraded (approvals not counted) */
  seconds: number;
  perClusterSeconds: number;
  /** rounds of at most maxUnavailable clusters, over all stages */
  batches: number;
  /** the waits between stages in that time */
  waitsSeconds: number;
};

/**
 * The time a plan takes before it starts: each stage upgrades its clusters in batches of
 * `maxUnavailable` at `upgradeSecondsPerCluster` each, and `waitSeconds` separate one stage from
 * the next (a stage with nothing to upgrade finishes at once but still waits). Time spent
 * awaiting approval and outside upgrade windows is not known in advance and not counted.
 */
export function estimateRollout(input: {
  stages: { upgrades: number }[];
  maxUnavailable: number;
  waitSeconds: number;
  heartbeatIntervalSeconds: number;
}): RolloutEta {
  const perCluster = upgradeSecondsPerCluster(input.heartbeatIntervalSeconds);
  const width = Math.max(1, Math.floor(input.maxUnavailable));
  const batches = input.stages.reduce((n, s) => n + Math.ceil(Math.max(0, s.upgrades) / width), 0);
  const waitsSeconds = Math.max(0, input.stages.length - 1) * Math.max(0, input.waitSeconds);
  return { seconds: batches * perCluster + waitsSeconds, perClusterSeconds: perCluster, batches, waitsSeconds };
}
