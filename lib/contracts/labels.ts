import { z } from "zod";
import { route } from "./route";

// The label keys and values in use across the fleet, with how many clusters carry each: what the
// label selector suggests, and what a new required label would block.

export const labelKeySummarySchema = z.object({
  key: z.string(),
  /** clusters carrying the key, whatever its value */
  clusters: z.number(),
  values: z.array(z.object({ value: z.string(), count: z.number() })),
  /** distinct values not listed (past MAX_VALUES_PER_KEY in lib/domain/label-summary.ts, the most common listed first) */
  otherValues: z.number(),
});
export type LabelKeySummary = z.infer<typeof labelKeySummarySchema>;

export const labelSummarySchema = z.object({
  /** clusters in the registry: those without a key are `clusters - key.clusters` */
  clusters: z.number(),
  keys: z.array(labelKeySummarySchema),
});
export type LabelSummary = z.infer<typeof labelSummarySchema>;

export const labelRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/labels",
    summary: "Label keys in use, each with its values and how many clusters carry them",
    role: "viewer",
    scope: "clusters",
    response: labelSummarySchema,
  }),
};
