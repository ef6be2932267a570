import { z } from "zod";
import { labelKeySchema } from "./labels";

/** Fleet-wide settings an admin can change at run time (PROTOCOL.md, Admin API). */
export const settingsSchema = z.object({
  notReadyThresholdSeconds: z.number().int().min(10).max(86_400),
  heartbeatIntervalSeconds: z.number().int().min(1).max(3_600),
  requiredLabels: z
    .array(labelKeySchema)
    .max(32)
    .refine((keys) => new Set(keys).size === keys.length, {
      message: "must not repeat a key",
    }),
  certificateValidityDays: z.number().int().min(1).max(825),
  /** How long after its end an agent certificate may still renew itself through rotate. */
  certificateRenewalGraceDays: z.number().int().min(0).max(365),
  /** How long an agent has to acknowledge `disconnect` before removal may be forced. */
  disconnectTimeoutSeconds: z.number().int().min(5).max(86_400),
  /** A cluster with more status changes than this in the last hour is flapping (list filter, reasons, notifications). */
  flappingThresholdPerHour: z.number().int().min(1).max(120),
  // Retention (README, Retention): rows older than this are pruned by the background jobs.
  /** Heartbeats per minute per cluster and the fleet's status counts per minute (the charts). */
  heartbeatHistoryRetentionDays: z.number().int().min(1).max(90),
  /** Status transitions and lifecycle milestones (a cluster's history). */
  statusEventRetentionDays: z.number().int().min(1).max(3_650),
  /** Registration attempts (the overview's success rate, the attempts log). */
  registrationAttemptRetentionDays: z.number().int().min(1).max(3_650),
  /** The audit log; pruned entries are first appended to the archive files in the data dir. */
  auditLogRetentionDays: z.number().int().min(30).max(3_650),
});
export type Settings = z.infer<typeof settingsSchema>;

export const settingsPatchSchema = settingsSchema
  .partial()
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "name at least one setting" })
  .refine(
    (p) =>
      p.notReadyThresholdSeconds === undefined ||
      p.heartbeatIntervalSeconds === undefined ||
      p.heartbeatIntervalSeconds < p.notReadyThresholdSeconds,
    { message: "heartbeatIntervalSeconds must be shorter than notReadyThresholdSeconds", path: ["heartbeatIntervalSeconds"] },
  );
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const DEFAULT_SETTINGS: Settings = {
  notReadyThresholdSeconds: 60,
  heartbeatIntervalSeconds: 15,
  requiredLabels: ["env", "region"],
  certificateValidityDays: 30,
  certificateRenewalGraceDays: 30,
  disconnectTimeoutSeconds: 120,
  // Two full NotReady-and-back cycles an hour is bad luck; more is a pattern worth a look.
  flappingThresholdPerHour: 4,
  // The longest chart reads 7 days, and this is by far the largest table (one row per cluster
  // per minute): more would only grow the database.
  heartbeatHistoryRetentionDays: 7,
  statusEventRetentionDays: 90,
  registrationAttemptRetentionDays: 30,
  auditLogRetentionDays: 365,
};
