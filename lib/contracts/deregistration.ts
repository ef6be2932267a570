import { z } from "zod";
import { DEREGISTRATION_ACTIONS, DEREGISTRATION_STEPS } from "@/lib/domain/deregistration";
import { isoTime } from "./common";
import { route } from "./route";

// The drain-then-deregister wizard of one cluster.

export const deregistrationActionSchema = z
  .object({
    action: z.enum(DEREGISTRATION_ACTIONS),
    force: z.boolean().optional(),
    reason: z.string().trim().max(500).optional(),
  })
  .strict();
export type DeregistrationRequest = z.input<typeof deregistrationActionSchema>;

export const verificationCheckSchema = z.object({ key: z.string(), label: z.string(), ok: z.boolean(), detail: z.string() });
export type VerificationCheck = z.infer<typeof verificationCheckSchema>;

export const forcedSkipSchema = z.object({
  step: z.string(),
  action: z.string(),
  by: z.string(),
  reason: z.string(),
  at: isoTime,
});
export type ForcedSkip = z.infer<typeof forcedSkipSchema>;

export const deregistrationSchema = z.object({
  clusterId: z.string(),
  clusterName: z.string().nullable(),
  step: z.enum(DEREGISTRATION_STEPS).nullable(),
  startedAt: isoTime.nullable(),
  startedBy: z.string().nullable(),
  stepStartedAt: isoTime.nullable(),
  waitingFor: z.string().nullable(),
  workloads: z.object({
    pods: z.number().nullable(),
    atStart: z.number().nullable(),
    /** While draining: the pods reported since the drain started, oldest first, as the server recorded them. */
    history: z.array(z.object({ at: isoTime, pods: z.number() })),
  }),
  disconnect: z
    .object({
      directiveId: z.string(),
      sentAt: isoTime,
      acknowledged: z.boolean(),
      acknowledgedAt: isoTime.nullable(),
      /** Set when the agent acknowledged the disconnect as failed, with its reason. */
      failedReason: z.string().nullable().optional(),
      timeoutSeconds: z.number(),
    })
    .nullable(),
  forced: z.array(forcedSkipSchema),
  verification: z.object({ checkedAt: isoTime, passed: z.boolean(), checks: z.array(verificationCheckSchema) }).nullable(),
  finishedAt: isoTime.nullable(),
  availableActions: z.array(z.enum(DEREGISTRATION_ACTIONS)),
});
export type Deregistration = z.infer<typeof deregistrationSchema>;

export const deregistrationRoutes = {
  get: route({
    method: "GET",
    path: "/api/v1/clusters/{id}/deregistration",
    summary: "The drain-then-deregister wizard's state",
    role: "viewer",
    scope: "cluster",
    response: deregistrationSchema,
  }),
  act: route({
    method: "POST",
    path: "/api/v1/clusters/{id}/deregistration",
    summary: "Advance the wizard: start, confirm-workloads, disconnect, remove, cancel",
    role: "operator",
    scope: "cluster",
    body: deregistrationActionSchema,
    response: deregistrationSchema,
  }),
};
