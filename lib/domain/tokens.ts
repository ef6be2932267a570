import { z } from "zod";
import { labelKeySchema, labelValue, labelValueSchema, labelsSchema, userKeyedRecord, type Labels } from "./labels";

export const TOKEN_TTL_DEFAULT_SECONDS = 2 * 60 * 60;
export const TOKEN_TTL_MAX_SECONDS = 30 * 24 * 60 * 60;

export const allowedLabelsSchema = userKeyedRecord(
  z
    .record(labelKeySchema, z.union([z.literal("*"), z.array(labelValueSchema).min(1).max(100)]))
    .refine((s) => Object.keys(s).length <= 64, "at most 64 keys"),
  "allowed label",
);
/** For each label key: the values an agent may ask for, or "*" for any. */
export type AllowedLabels = z.infer<typeof allowedLabelsSchema>;

export const mintTokenSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    description: z.string().trim().max(500).optional(),
    ttlSeconds: z.number().int().min(60).max(TOKEN_TTL_MAX_SECONDS).default(TOKEN_TTL_DEFAULT_SECONDS),
    maxClusters: z.number().int().min(1).max(100_000).default(1),
    allowedLabels: allowedLabelsSchema.optional(),
    fixedLabels: labelsSchema.optional(),
    /** Binds the token to this existing cluster: it then registers (re-enrols or claims) only that cluster. */
    clusterId: z.string().trim().min(1).max(64).optional(),
    /**
     * New clusters registered with it wait for an operator's approval (docs/protocol.md,
     * "Approval"). Absent: the fleet's requireApprovalByDefault setting decides.
     */
    requireApproval: z.boolean().optional(),
    /** The team the token is for (name or id): its clusters land in the team's scope. */
    team: z.string().trim().min(1).max(100).optional(),
  })
  .strict();
export type MintTokenInput = z.infer<typeof mintTokenSchema>;

export type TokenStatus = "active" | "expired" | "revoked" | "exhausted";

export function tokenStatus(
  t: { revokedAt: Date | null; expiresAt: Date; usedClusters: number; maxClusters: number },
  now: Date,
): TokenStatus {
  if (t.revokedAt) return "revoked";
  if (t.expiresAt.getTime() <= now.getTime()) return "expired";
  if (t.usedClusters >= t.maxClusters) return "exhausted";
  return "active";
}

/**
 * The first label the token's scope does not allow, if any. Keys are users' (a scope may well
 * name a label "constructor"), so only the scope's own properties count.
 */
export function labelOutsideScope(requested: Labels, scope: AllowedLabels | null): { key: string; value: string } | null {
  if (!scope) return null;
  for (const [key, value] of Object.entries(requested)) {
    const allowed = Object.hasOwn(scope, key) ? scope[key] : undefined;
    if (allowed === "*") continue;
    if (!Array.isArray(allowed) || !allowed.includes(value)) return { key, value };
  }
  return null;
}

/**
 * The labels a cluster registers with: the agent's, then the token's fixed labels stamped over
 * them. An agent asking for a different value of a fixed label is a conflict, reported by key.
 */
export function mergeFixedLabels(requested: Labels, fixed: Labels): { labels: Labels; conflict: string | null } {
  for (const [key, value] of Object.entries(fixed)) {
    const asked = labelValue(requested, key);
    if (asked !== undefined && asked !== value) return { labels: requested, conflict: key };
  }
  return { labels: { ...requested, ...fixed }, conflict: null };
}

/**
 * The labels of a cluster that registers again (or is claimed): what it has now (console edits,
 * or an admin's presets), the agent's own for keys it does not have yet (`filler`; empty on a
 * re-registration, where sent labels are ignored), and the token's fixed labels over all of them.
 * A scoped token must allow the result, so a token cannot carry a cluster into or out of labels
 * outside its scope.
 */
export function relabelForToken(
  stored: Labels,
  token: { fixedLabels: Labels; allowedLabels: AllowedLabels | null },
  filler: Labels = {},
): { labels: Labels; outside: { key: string; value: string } | null } {
  const labels = { ...filler, ...stored, ...token.fixedLabels };
  return { labels, outside: labelOutsideScope(labels, token.allowedLabels) };
}
