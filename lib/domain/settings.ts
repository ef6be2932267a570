import { z } from "zod";
import { clusterLinkTemplateProblem } from "./cluster-link";
import { kubeContextTemplateProblem } from "./kube-context";
import { labelKeyProblem } from "./labels";
import { selectorProblem } from "./selector";
import { DEFAULT_DENIED_KEY_COOLDOWN_HOURS } from "./registration-approval";
import { PROVISIONING_OBJECTIVE_MINUTES } from "./provisioning-time";
import { SSO_ROLE_MAPPING_LABEL, ssoRoleMappingSchema } from "./sso-roles";

/**
 * Each setting's name as the Settings form shows it. Every validation message a person reads uses
 * these (the API keeps the machine name in `details[].field`), so an error never names a field
 * the form does not show.
 */
export const SETTING_LABELS = {
  notReadyThresholdSeconds: "NotReady threshold (seconds)",
  heartbeatIntervalSeconds: "Heartbeat interval (seconds)",
  requiredLabels: "Required labels",
  certificateValidityDays: "Certificate validity (days)",
  certificateRenewalGraceDays: "Renewal grace (days)",
  disconnectTimeoutSeconds: "Disconnect timeout (seconds)",
  flappingThresholdPerHour: "Flapping threshold (changes per hour)",
  provisioningThresholdMinutes: "Provisioning threshold (minutes)",
  heartbeatHistoryRetentionDays: "Heartbeat history (days)",
  statusEventRetentionDays: "Status events (days)",
  registrationAttemptRetentionDays: "Registration attempts (days)",
  requireApprovalByDefault: "New tokens require approval",
  deniedKeyCooldownHours: "Denied key cooldown (hours)",
  auditLogRetentionDays: "Audit log (days)",
  // Single sign-on (lib/domain/sso-roles.ts): its own section of the Settings page.
  ssoRoleMapping: SSO_ROLE_MAPPING_LABEL,
  ssoTrustedEmailIssuer: "Trust the provider’s emails",
  // Webhooks
  webhookAllowPrivateTargets: "Allow webhooks to private addresses",
  // ClusterProfile export: its own section of the Settings page.
  hubAllowPrivateTargets: "Allow a ClusterProfile hub on a private address",
  // The cluster page's link out (lib/domain/cluster-link.ts).
  clusterLinkTemplate: "Cluster link template",
  // The kubectl context each cluster's commands name (lib/domain/kube-context.ts).
  kubeContextTemplate: "kubectl context template",
  // Wide destructive bulk actions (lib/domain/selection-guard.ts).
  productionSelector: "Production clusters",
  drainStartsPerMinute: "Bulk drain starts per minute",
} as const;
type SettingKey = keyof typeof SETTING_LABELS;

/** A whole number in [min, max], refused in words that name the setting by its label. */
function wholeNumber(key: SettingKey, min: number, max: number) {
  const label = SETTING_LABELS[key];
  const range = `${label} must be a whole number from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}.`;
  return z
    .number({ error: `${label} must be a number.` })
    .int({ error: range })
    .min(min, { error: range })
    .max(max, { error: range });
}

export const MAX_REQUIRED_LABELS = 32;

const requiredLabelsSchema = z
  .array(z.string(), { error: `${SETTING_LABELS.requiredLabels} must be a list of label keys.` })
  .superRefine((keys, ctx) => {
    const label = SETTING_LABELS.requiredLabels;
    keys.forEach((key, i) => {
      const problem = labelKeyProblem(key);
      // The path names the entry (requiredLabels.0), as every other refusal names its field.
      if (problem) ctx.addIssue({ code: "custom", path: [i], message: `${label}: “${key}” is not a label key (${problem}).` });
    });
    if (keys.length > MAX_REQUIRED_LABELS)
      ctx.addIssue({ code: "custom", message: `${label} can name at most ${MAX_REQUIRED_LABELS} keys.` });
    const repeated = keys.filter((k, i) => keys.indexOf(k) !== i);
    if (repeated.length) ctx.addIssue({ code: "custom", message: `${label} names “${repeated[0]}” more than once.` });
  });

/** Fleet-wide settings an admin can change at run time (docs/operations/configuration.md). */
export const settingsSchema = z.object({
  notReadyThresholdSeconds: wholeNumber("notReadyThresholdSeconds", 10, 86_400),
  heartbeatIntervalSeconds: wholeNumber("heartbeatIntervalSeconds", 1, 3_600),
  requiredLabels: requiredLabelsSchema,
  certificateValidityDays: wholeNumber("certificateValidityDays", 1, 825),
  /** How long after its end an agent certificate may still renew itself through rotate. */
  certificateRenewalGraceDays: wholeNumber("certificateRenewalGraceDays", 0, 365),
  /** How long an agent has to acknowledge `disconnect` before removal may be forced. */
  disconnectTimeoutSeconds: wholeNumber("disconnectTimeoutSeconds", 5, 86_400),
  /** A cluster with more status changes than this in the last hour is flapping (list filter, reasons, notifications). */
  flappingThresholdPerHour: wholeNumber("flappingThresholdPerHour", 1, 120),
  /** A cluster in phase Provisioning for longer than this needs attention (reasons, the Overview's count). */
  provisioningThresholdMinutes: wholeNumber("provisioningThresholdMinutes", 1, 1_440),
  // Retention (docs/operations/retention.md): rows older than this are pruned by the background jobs.
  /** Heartbeats per minute per cluster and the fleet's status counts per minute (the charts). */
  heartbeatHistoryRetentionDays: wholeNumber("heartbeatHistoryRetentionDays", 1, 90),
  /** Status transitions and lifecycle milestones (a cluster's history). */
  statusEventRetentionDays: wholeNumber("statusEventRetentionDays", 1, 3_650),
  /** Registration attempts (the overview's success rate, the attempts log). */
  registrationAttemptRetentionDays: wholeNumber("registrationAttemptRetentionDays", 1, 3_650),
  /** The audit log; pruned entries are first appended to the archive files in the data dir. */
  auditLogRetentionDays: wholeNumber("auditLogRetentionDays", 30, 3_650),
  /** Single sign-on: the claim that sets SSO users' roles at each sign-in; null: roles are set in the console. */
  ssoRoleMapping: ssoRoleMappingSchema.nullable(),
  /**
   * The OpenID Provider (issuer URL) whose `email` claims count as verified without
   * `email_verified: true`; null: none. Only an admin's explicit choice: some providers let
   * anyone put any address there.
   */
  ssoTrustedEmailIssuer: z
    .url({
      protocol: /^https?$/,
      error: `${SETTING_LABELS.ssoTrustedEmailIssuer}: give the provider's issuer URL (http or https), or null for none.`,
    })
    .max(2048, { error: `${SETTING_LABELS.ssoTrustedEmailIssuer}: the issuer URL is at most 2048 characters.` })
    .nullable(),
  /**
   * Tokens minted without saying otherwise register new clusters only after an operator's
   * approval (registration requests).
   */
  requireApprovalByDefault: z.boolean({ error: `${SETTING_LABELS.requireApprovalByDefault} must be true or false.` }),
  /**
   * How long a key whose registration request was denied is refused (403 registration_denied, with
   * the operator's reason) when it asks again for the same name, with any token.
   */
  deniedKeyCooldownHours: wholeNumber("deniedKeyCooldownHours", 1, 8_760),
  // Webhooks
  /** Webhook targets on private and loopback addresses are refused unless this is on (SSRF); link-local ones always are. */
  webhookAllowPrivateTargets: z.boolean({ error: `${SETTING_LABELS.webhookAllowPrivateTargets} must be true or false.` }),
  /** The hub kubeconfig's server on a private, loopback or link-local address is refused unless this is on (SSRF, as webhooks). */
  hubAllowPrivateTargets: z.boolean({ error: `${SETTING_LABELS.hubAllowPrivateTargets} must be true or false.` }),
  /**
   * A link out on each cluster's page (Headlamp, a cloud console): a URL template with {name},
   * {id} and {label:<key>}; null: no link.
   */
  clusterLinkTemplate: z
    .string({ error: `${SETTING_LABELS.clusterLinkTemplate} must be a URL template, or null for none.` })
    .trim()
    .superRefine((t, ctx) => {
      const problem = clusterLinkTemplateProblem(t);
      if (problem) ctx.addIssue({ code: "custom", message: `${SETTING_LABELS.clusterLinkTemplate}: ${problem}` });
    })
    .nullable(),
  /**
   * The kubectl context each cluster's "what to check next" commands name (`--context`): a
   * template with {name}, {id} and {label:<key>}; null: the commands run in the current context.
   */
  kubeContextTemplate: z
    .string({ error: `${SETTING_LABELS.kubeContextTemplate} must be a text template, or null for none.` })
    .trim()
    .superRefine((t, ctx) => {
      const problem = kubeContextTemplateProblem(t);
      if (problem) ctx.addIssue({ code: "custom", message: `${SETTING_LABELS.kubeContextTemplate}: ${problem}` });
    })
    .nullable(),
  /**
   * The clusters that count as production (a label selector): a bulk drain or pool retirement
   * that includes any needs an admin and a typed sentence; null: none does.
   */
  productionSelector: z
    .string({ error: `${SETTING_LABELS.productionSelector} must be a label selector, or null for none.` })
    .trim()
    .min(1, { error: `${SETTING_LABELS.productionSelector}: give a label selector such as env=prod, or null for none.` })
    .superRefine((t, ctx) => {
      const problem = selectorProblem(t);
      if (problem) ctx.addIssue({ code: "custom", message: `${SETTING_LABELS.productionSelector}: ${problem}` });
    })
    .nullable(),
  /** A bulk drain starts this many clusters at once, then this many a minute; the rest wait in the drain queue. */
  drainStartsPerMinute: wholeNumber("drainStartsPerMinute", 1, 1_000),
});
export type Settings = z.infer<typeof settingsSchema>;

/**
 * The rule between settings, on the values in force after a change (a patch may name only one of
 * the two): null, or the field to blame and the sentence.
 */
export function crossSettingProblem(
  s: Pick<Settings, "heartbeatIntervalSeconds" | "notReadyThresholdSeconds">,
): { field: SettingKey; message: string } | null {
  if (s.heartbeatIntervalSeconds < s.notReadyThresholdSeconds) return null;
  return {
    field: "heartbeatIntervalSeconds",
    message: `${SETTING_LABELS.heartbeatIntervalSeconds} must be shorter than the ${SETTING_LABELS.notReadyThresholdSeconds} (${s.notReadyThresholdSeconds}).`,
  };
}

export const settingsPatchSchema = settingsSchema
  .partial()
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "Name at least one setting to change." })
  .superRefine((p, ctx) => {
    if (p.notReadyThresholdSeconds === undefined || p.heartbeatIntervalSeconds === undefined) return;
    const problem = crossSettingProblem({
      heartbeatIntervalSeconds: p.heartbeatIntervalSeconds,
      notReadyThresholdSeconds: p.notReadyThresholdSeconds,
    });
    if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: [problem.field] });
  });
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
  // The objective itself: a cluster still provisioning once it can no longer meet it is worth a look.
  provisioningThresholdMinutes: PROVISIONING_OBJECTIVE_MINUTES,
  // The longest chart reads 7 days, and this is by far the largest table (one row per cluster
  // per minute): more would only grow the database.
  heartbeatHistoryRetentionDays: 7,
  statusEventRetentionDays: 90,
  registrationAttemptRetentionDays: 30,
  auditLogRetentionDays: 365,
  requireApprovalByDefault: false,
  // A denial stands for a day: asking again at once, with another token, changes nothing.
  deniedKeyCooldownHours: DEFAULT_DENIED_KEY_COOLDOWN_HOURS,
  ssoRoleMapping: null,
  ssoTrustedEmailIssuer: null,
  // Webhooks: a receiver inside the network is an admin's explicit choice.
  webhookAllowPrivateTargets: false,
  // A hub inside the network is an admin's explicit choice too, and a separate one: allowing
  // webhooks there says nothing about the hub.
  hubAllowPrivateTargets: false,
  clusterLinkTemplate: null,
  kubeContextTemplate: null,
  // The spellings of production teams use most; an admin sets their own (or none) in Settings.
  productionSelector: "env in (prod,production)",
  drainStartsPerMinute: 10,
};
