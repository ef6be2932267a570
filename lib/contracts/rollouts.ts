import { z } from "zod";
import { createRolloutSchema, MEMBER_STATES, ROLLOUT_ACTIONS, ROLLOUT_STATES } from "@/lib/domain/rollouts";
import { HEALTH_STATUSES } from "@/lib/domain/status";
import { isoTime, itemsOf } from "./common";
import { route } from "./route";

export const rolloutActionSchema = z
  .object({
    action: z.enum(ROLLOUT_ACTIONS),
    reason: z.string().trim().max(300).optional(),
    /** approve although a canary is not Ready on the target (needs a reason; audited as an override) */
    override: z.boolean().optional(),
  })
  .strict()
  .refine((a) => !a.override || a.action === "approve", { message: "only an approval can be overridden", path: ["override"] })
  .refine((a) => !a.override || !!a.reason, { message: "an override needs a reason", path: ["reason"] });
export type RolloutActionInput = z.infer<typeof rolloutActionSchema>;

const rolloutStageSchema = z.object({
  index: z.number(),
  name: z.string(),
  total: z.number(),
  pending: z.number(),
  upgrading: z.number(),
  succeeded: z.number(),
  failed: z.number(),
  skipped: z.number(),
  state: z.enum(["done", "current", "waiting"]),
});
export type RolloutStage = z.infer<typeof rolloutStageSchema>;

const rolloutMemberSchema = z.object({
  clusterId: z.string(),
  name: z.string().nullable(),
  stage: z.number(),
  state: z.enum(MEMBER_STATES),
  fromVersion: z.string().nullable(),
  agentVersion: z.string().nullable(),
  startedAt: isoTime.nullable(),
  finishedAt: isoTime.nullable(),
  error: z.string().nullable(),
  /** Upgrading through a GitOps repository: the agent's sentence naming the image to put there. */
  handoff: z.string().nullable(),
});

export const rolloutSchema = z.object({
  id: z.string(),
  name: z.string(),
  targetVersion: z.string(),
  selector: z.string().nullable(),
  groupId: z.string().nullable(),
  /**
   * The team it belongs to (its operators act on it; it upgrades only clusters in the team's scope,
   * judged again at each cluster's turn); null: the fleet's. `name` is null once the team is deleted.
   */
  team: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
  state: z.enum(ROLLOUT_STATES),
  pausedReason: z.string().nullable(),
  /** why a running rollout starts nothing now (e.g. outside an upgrade window) */
  waitingReason: z.string().nullable(),
  requireApproval: z.boolean(),
  includeUnready: z.boolean(),
  /** from the mean time its clusters took so far; null until one has finished */
  eta: z.object({ seconds: z.number(), perClusterSeconds: z.number(), observed: z.number() }).nullable(),
  currentStage: z.number(),
  maxUnavailable: z.number(),
  waitSeconds: z.number(),
  failureThreshold: z.number(),
  clusterTimeoutSeconds: z.number(),
  stageCompletedAt: isoTime.nullable(),
  /**
   * The current stage's evidence once it has finished (soaking or awaiting approval): each of its
   * clusters with its live status, version and Ready since; null before the stage finishes.
   */
  evidence: z
    .object({
      stage: z.number(),
      soakSeconds: z.number(),
      soakedAt: isoTime.nullable(),
      /** why approving now is refused (an override with a reason goes on anyway), or null */
      problem: z.string().nullable(),
      canaries: z.array(
        z.object({
          clusterId: z.string(),
          name: z.string().nullable(),
          state: z.enum(MEMBER_STATES),
          health: z.enum(HEALTH_STATUSES).nullable(),
          agentVersion: z.string().nullable(),
          readySince: isoTime.nullable(),
          judged: z.boolean(),
          problem: z.string().nullable(),
        }),
      ),
    })
    .nullable(),
  createdAt: isoTime,
  finishedAt: isoTime.nullable(),
  totals: z.object({
    clusters: z.number(),
    succeeded: z.number(),
    failed: z.number(),
    upgrading: z.number(),
    skipped: z.number(),
  }),
  stages: z.array(rolloutStageSchema),
  clusters: z.array(rolloutMemberSchema),
});
export type Rollout = z.infer<typeof rolloutSchema>;

export const rolloutPlanSchema = z.object({
  /** every cluster the input names */
  clusters: z.number(),
  /** those planned into stages */
  planned: z.number(),
  /** planned clusters already on the target version (skipped at once) */
  alreadyOnTarget: z.number(),
  /** per stage: the clusters it takes and, of those, the ones it upgrades (not already on the target) */
  stages: z.array(z.object({ name: z.string(), clusters: z.number(), upgrades: z.number() })),
  /** the fleet's heartbeat interval, which paces each upgrade (lib/domain/rollout-eta.ts) */
  heartbeatIntervalSeconds: z.number(),
  /** left out: NotReady or draining (unless included on purpose) */
  skipped: z.array(z.object({ clusterId: z.string(), name: z.string(), reason: z.string() })),
  /**
   * A team's rollout: every count above is within the team's scope; `leftOut` clusters match the
   * selector or group outside it and are neither planned nor counted. Absent for the fleet's.
   */
  scope: z.object({ teamId: z.string(), team: z.string(), leftOut: z.number() }).optional(),
});
export type RolloutPlan = z.infer<typeof rolloutPlanSchema>;

export const rolloutRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/rollouts",
    // `member`: bounded by who owns each rollout (Rollout.teamId), not by a selector.
    summary:
      "Agent upgrade rollouts: every rollout for a fleet role (a team's names its team); through teams, only the caller's teams' rollouts",
    role: "viewer",
    scope: "member",
    response: itemsOf(rolloutSchema),
  }),
  create: route({
    method: "POST",
    path: "/api/v1/rollouts",
    summary:
      "Start a staged agent upgrade. With `team` (or for a caller whose operator role is one team's, that team) the rollout is the team's: planned over the clusters in its scope only (a group, being the fleet's, gives its members in the scope; explicit ids outside it read as unknown), each checked against the scope again when its turn comes (one that left it is skipped), clusters matching later never added; its operators act on it",
    role: "operator",
    scope: "clusters",
    body: createRolloutSchema,
    response: rolloutSchema,
    status: 201,
  }),
  plan: route({
    method: "POST",
    path: "/api/v1/rollouts/plan",
    summary:
      "What a rollout would do now (stages, skipped clusters), without starting it; a team's plan counts only the clusters in its scope, and `scope.leftOut` the selector's or group's matches outside it",
    role: "operator",
    scope: "clusters",
    body: createRolloutSchema,
    response: rolloutPlanSchema,
  }),
  get: route({
    method: "GET",
    path: "/api/v1/rollouts/{id}",
    summary: "A rollout with per-stage progress",
    role: "viewer",
    scope: "rollout",
    response: rolloutSchema,
  }),
  act: route({
    method: "POST",
    path: "/api/v1/rollouts/{id}/actions",
    summary: "Pause, resume, abort, or approve the next stage",
    role: "operator",
    scope: "rollout",
    body: rolloutActionSchema,
    response: rolloutSchema,
  }),
};
