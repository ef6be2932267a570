import { z } from "zod";
import { createRolloutSchema, ROLLOUT_ACTIONS } from "@/lib/domain/rollouts";
import { route } from "./route";

export const rolloutActionSchema = z
  .object({ action: z.enum(ROLLOUT_ACTIONS), reason: z.string().trim().max(300).optional() })
  .strict();
export type RolloutActionInput = z.infer<typeof rolloutActionSchema>;

export const rolloutRoutes = {
  list: route({ method: "GET", path: "/api/v1/rollouts", summary: "Agent upgrade rollouts", role: "viewer" }),
  create: route({
    method: "POST",
    path: "/api/v1/rollouts",
    summary: "Start a staged agent upgrade",
    role: "operator",
    body: createRolloutSchema,
    status: 201,
  }),
  get: route({ method: "GET", path: "/api/v1/rollouts/{id}", summary: "A rollout with per-stage progress", role: "viewer" }),
  act: route({
    method: "POST",
    path: "/api/v1/rollouts/{id}/actions",
    summary: "Pause, resume or abort",
    role: "operator",
    body: rolloutActionSchema,
  }),
};
