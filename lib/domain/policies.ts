import { z } from "zod";
import { DNS_LABEL } from "./labels";
import { matchesSelector, parseSelector } from "./selector";

export const policyNameSchema = z.string().trim().regex(DNS_LABEL, "lowercase letters, digits and '-', at most 63");

/** A policy's content: a JSON document the agent applies (kept small; it travels in heartbeats' context). */
export const policyContentSchema = z
  .record(z.string(), z.unknown())
  .refine((c) => JSON.stringify(c).length <= 32_768, "at most 32 KiB");

export const createPolicySchema = z
  .object({
    name: policyNameSchema,
    description: z.string().trim().max(500).optional(),
    groupIds: z.array(z.string().min(1)).max(100).default([]),
    content: policyContentSchema,
  })
  .strict();
export const updatePolicySchema = z
  .object({
    description: z.string().trim().max(500).nullable().optional(),
    groupIds: z.array(z.string().min(1)).max(100).optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "name at least one field" });
export const newRevisionSchema = z.object({ content: policyContentSchema }).strict();

export type TargetedPolicy = { name: string; revision: number; selectors: string[] };

/**
 * The revision a cluster should run: every policy targeting one of its groups, as
 * "<policy>:<revision>" sorted by name and joined by ","; null when no policy targets it.
 */
export function desiredRevision(labels: Record<string, string>, policies: TargetedPolicy[]): string | null {
  const applying = policies
    .filter((p) =>
      p.selectors.some((s) => {
        try {
          return matchesSelector(labels, parseSelector(s));
        } catch {
          return false;
        }
      }),
    )
    .map((p) => `${p.name}:${p.revision}`)
    .sort();
  return applying.length ? applying.join(",") : null;
}
