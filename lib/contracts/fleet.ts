import { z } from "zod";
import { parseDuration, parseMaxUnready, ToleranceError } from "@/lib/domain/gate-tolerance";
import { checkSelectorText } from "@/lib/domain/selector";
import { CLUSTER_STATUSES, type ClusterStatus } from "@/lib/domain/status";
import { clusterStatusSchema, isoTime } from "./common";
import { fleetEventSchema } from "./events";
import { route } from "./route";

// The fleet as a whole: overview, live events, capacity and the pipeline gate.

const countsOf = <S extends ClusterStatus>(statuses: readonly S[]) =>
  Object.fromEntries(statuses.map((s) => [s, z.number()])) as Record<S, z.ZodNumber>;

export const statusCountsSchema = z.object({ ...countsOf(CLUSTER_STATUSES), total: z.number() });
export type StatusCounts = z.infer<typeof statusCountsSchema>;

/** The statuses the once-a-minute fleet samples keep (the overview's history chart). */
export const SAMPLED_STATUSES = ["Ready", "NotReady", "Pending", "Draining"] as const satisfies readonly ClusterStatus[];
export const statusSampleSchema = z.object({ at: isoTime, ...countsOf(SAMPLED_STATUSES) });
export type StatusSample = z.infer<typeof statusSampleSchema>;

/**
 * The Overview: the whole fleet's for a fleet role. For a caller whose roles come from teams,
 * every count, chart and list covers their teams' clusters only (`scope` says whose), and what
 * exists only fleet-wide is null: the once-a-minute status samples, registrations (tokens and
 * their attempts) and the decisions waiting (the approval queue, rollouts).
 */
export const overviewSchema = z.object({
  now: isoTime,
  /** Present for team roles only: the teams whose clusters the figures cover. */
  scope: z.object({ teams: z.array(z.string()) }).optional(),
  counts: statusCountsSchema,
  notReadyThresholdSeconds: z.number(),
  /** clusters flapping (more than the setting's status changes in the last hour) and with a degraded API server */
  health: z.object({ flapping: z.number(), degraded: z.number(), flappingThresholdPerHour: z.number() }),
  heartbeatsPerMinute: z.array(z.object({ at: isoTime, count: z.number() })),
  statusHistory: z.array(statusSampleSchema).nullable(),
  registrations: z
    .object({
      windowHours: z.number(),
      total: z.number(),
      succeeded: z.number(),
      /** accepted and waiting for an operator's approval (202 pending_approval): neither refused nor failed, outside the rate */
      waiting: z.number(),
      /** refused as designed (token used up or expired, missing label...): not against the objective */
      refused: z.number(),
      /** failures of the system (5xx, server-side errors): the only thing the objective counts */
      failed: z.number(),
      /** deferred for load (503 overloaded): the agent retries; neither refused nor failed, and outside the rate */
      deferred: z.number(),
      /** 1 - failed / (total - deferred - waiting) */
      successRate: z.number().nullable(),
      objective: z.number(),
      byResult: z.record(z.string(), z.number()),
    })
    .nullable(),
  /**
   * Pre-created clusters (phase Provisioning until an agent claims them) against the objective:
   * those pre-created in the window that have registered, how long that took (nearest-rank
   * percentiles, null when none registered), and those still provisioning now, however long ago
   * they were pre-created.
   */
  provisioning: z.object({
    windowHours: z.number(),
    objectiveMinutes: z.number(),
    /** the fleet's setting: still provisioning after this long needs attention */
    thresholdMinutes: z.number(),
    registered: z.number(),
    p50Ms: z.number().nullable(),
    p90Ms: z.number().nullable(),
    maxMs: z.number().nullable(),
    /** registered in under the objective */
    withinObjective: z.number(),
    /** in phase Provisioning now */
    provisioning: z.number(),
    /** of those, for longer than the threshold */
    overThreshold: z.number(),
    /** the first few of those, provisioning the longest first; `since`: when each entered Provisioning */
    longestOverThreshold: z.array(z.object({ id: z.string(), name: z.string(), since: isoTime })),
  }),
  /** What waits for a person's decision: registrations to approve, rollout stages to approve. */
  decisions: z
    .object({
      pendingRegistrations: z.number(),
      rolloutsAwaitingApproval: z.array(z.object({ id: z.string(), name: z.string(), nextStage: z.string() })),
    })
    .nullable(),
  /** From the server's last enrollment evaluation; null until its first one. */
  enrollment: z
    .object({
      at: isoTime,
      total: z.number(),
      enrolled: z.number(),
      /** clusters blocked on each item (failing or pending), by item key */
      blockedBy: z.record(z.string(), z.number()),
      labels: z.record(z.string(), z.string()),
    })
    .nullable(),
  attention: z.object({
    notReadyLongest: z.array(
      z.object({ id: z.string(), name: z.string(), since: isoTime, lastHeartbeatAt: isoTime.nullable(), reason: z.string() }),
    ),
    certificatesExpiring: z.array(z.object({ id: z.string(), name: z.string(), serial: z.string(), notAfter: isoTime })),
    missingLabels: z.array(z.object({ id: z.string(), name: z.string(), missing: z.array(z.string()) })),
    /** clusters another active cluster shares its kube-system UID with ("Same cluster as"): how many, and the first few */
    sameCluster: z.object({
      total: z.number(),
      items: z.array(
        z.object({ id: z.string(), name: z.string(), sameAs: z.array(z.object({ id: z.string(), name: z.string() })) }),
      ),
    }),
    /** clusters an operator snoozed (left out of the lists above until the snooze ends): how many, the soonest to end first */
    snoozed: z.object({
      total: z.number(),
      items: z.array(z.object({ id: z.string(), name: z.string(), until: isoTime, owner: z.string(), reason: z.string() })),
    }),
  }),
});
export type Overview = z.infer<typeof overviewSchema>;

/**
 * Pools of NotReady clusters: their last report may be long out of date, so they are counted
 * apart from the live figures, with the oldest of their clusters' last heartbeats ("as of").
 */
export const staleCapacitySchema = z.object({
  clusters: z.number(),
  pools: z.number(),
  nodes: z.number(),
  asOf: isoTime.nullable(),
});

export const capacitySchema = z.object({
  by: z.string(),
  /** live figures: pools of clusters that are not NotReady */
  rows: z.array(
    z.object({
      key: z.string(),
      clusters: z.number(),
      pools: z.number(),
      nodes: z.number(),
      readyNodes: z.number(),
      cpuCores: z.number(),
      memoryGiB: z.number(),
      notReady: staleCapacitySchema,
    }),
  ),
  notReady: staleCapacitySchema,
  kubeletVersions: z.array(z.object({ version: z.string(), nodes: z.number() })),
  instanceTypes: z.array(z.object({ type: z.string(), nodes: z.number() })),
  retiring: z.number(),
});
export type Capacity = z.infer<typeof capacitySchema>;

export const capacityQuerySchema = z.object({
  by: z
    .string()
    .regex(/^[A-Za-z0-9./_-]{1,316}$/)
    .default("region"),
});

/** A tolerance value through its pure parser: a refusal names its `rule` in the 400's details. */
const toleranceText = <T>(parse: (text: string) => T) =>
  z
    .string()
    .max(40)
    .superRefine((text, ctx) => {
      try {
        parse(text);
      } catch (err) {
        if (!(err instanceof ToleranceError)) throw err;
        ctx.addIssue({ code: "custom", message: err.message, params: { rule: err.rule } });
      }
    });

export const gateQuerySchema = z
  .object({
    selector: z.string().superRefine(checkSelectorText).optional(),
    group: z.string().max(200).optional(),
    /** how many matching clusters may be unready and the gate still pass: a count (3) or a percentage (10%) */
    maxUnready: toleranceText(parseMaxUnready).optional(),
    /** leave out of the target set the clusters NotReady for longer than this (30m, 2h, 1d) */
    ignoreNotReadyLongerThan: toleranceText(parseDuration).optional(),
    /**
     * true: leave out of the target set the unready clusters an operator snoozed (listed under
     * `snoozed`); false: judge them like the rest. Unset: the group's own setting (gateTolerateSnoozed), else false.
     */
    tolerateSnoozed: z.enum(["true", "false"]).optional(),
  })
  .refine((q) => q.selector !== undefined || q.group !== undefined, { message: "name a selector or a group" });
export type GateQuery = z.infer<typeof gateQuerySchema>;

/** A group's gate view as its URL names it: the API's own tolerance parameters, unchecked. */
export function gateQueryFromSearch(group: string, search: URLSearchParams): GateQuery {
  const maxUnready = search.get("maxUnready")?.trim();
  const ignore = search.get("ignoreNotReadyLongerThan")?.trim();
  return { group, ...(maxUnready ? { maxUnready } : {}), ...(ignore ? { ignoreNotReadyLongerThan: ignore } : {}) };
}

const gateClusterSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: clusterStatusSchema,
  phase: z.string(),
  enrolled: z.boolean(),
  reasons: z.array(z.string()),
});

export const gateResultSchema = z.object({
  pass: z.boolean(),
  summary: z.string(),
  evaluatedAt: isoTime,
  /** the clusters judged: every match but the ignored ones */
  clusters: z.array(gateClusterSchema),
  tolerance: z.object({
    /** as asked ("3", "10%"), or null: none tolerated */
    maxUnready: z.string().nullable(),
    /** unready clusters the verdict allows (a percentage of `total`, rounded down) */
    allowed: z.number(),
    unready: z.number(),
    total: z.number(),
    /** "2 of 24 not ready (tolerated: up to 3)" */
    text: z.string(),
  }),
  /** matching clusters NotReady for longer than `ignoreNotReadyLongerThan`: listed, not judged */
  ignored: z.object({
    longerThan: z.string().nullable(),
    longerThanSeconds: z.number().nullable(),
    clusters: z.array(z.object({ id: z.string(), name: z.string(), notReadySince: isoTime })),
    /** "ignored 1 NotReady for more than 30m", or null when nothing is ignored by asking */
    text: z.string().nullable(),
  }),
  /** unready clusters an operator snoozed, left out because snoozed clusters were tolerated: listed, not judged */
  snoozed: z
    .object({
      tolerated: z.boolean(),
      clusters: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          until: isoTime,
          reason: z.string(),
          owner: z.string(),
          reasons: z.array(z.string()),
        }),
      ),
      /** "left out 1 snoozed: db-eu-1", or null when none was left out */
      text: z.string().nullable(),
    })
    .optional(),
  /**
   * For a caller with team roles only: the gate judged the selection within their teams' scopes;
   * `leftOut` clusters match it outside them and were not judged. Absent for fleet roles.
   */
  scope: z.object({ leftOut: z.number(), text: z.string() }).optional(),
});
export type GateResult = z.infer<typeof gateResultSchema>;

export const fleetRoutes = {
  overview: route({
    method: "GET",
    path: "/api/v1/overview",
    summary: "Fleet overview (for team roles: their teams' clusters only, the fleet-wide parts left out)",
    role: "viewer",
    scope: "clusters",
    response: overviewSchema,
  }),
  events: route({
    method: "GET",
    path: "/api/v1/events",
    summary: "Live events (text/event-stream); for team roles only the events of their teams' clusters",
    role: "viewer",
    scope: "clusters",
    events: fleetEventSchema,
  }),
  capacity: route({
    method: "GET",
    path: "/api/v1/node-pools",
    summary: "Fleet capacity by a label",
    role: "viewer",
    scope: "clusters",
    query: capacityQuerySchema,
    response: capacitySchema,
  }),
  gate: route({
    method: "GET",
    path: "/api/v1/gate",
    summary: "Pipeline change gate (for team roles: judged within their teams' scopes, the clusters left out counted)",
    role: "viewer",
    scope: "clusters",
    query: gateQuerySchema,
    response: gateResultSchema,
  }),
};
