import { z } from "zod";
import { DNS_LABEL } from "./labels";
import { checkSelectorText } from "./selector";
import { timeZoneSchema, upgradeWindowsSchema } from "./upgrade-windows";

export const selectorTextSchema = z
  .string()
  .trim()
  .min(1, "a group needs a selector (use `env` to match every cluster with an env label)")
  .superRefine(checkSelectorText);

export const groupNameSchema = z.string().trim().regex(DNS_LABEL, "lowercase letters, digits and '-', at most 63");

/**
 * Rollouts start upgrading the group's clusters only inside these weekly windows (wall-clock
 * times in `upgradeTimeZone`, UTC when null); rollouts targeting the group, at most maxUnavailable at once.
 */
const upgradePolicy = {
  upgradeWindows: upgradeWindowsSchema.nullable().optional(),
  upgradeTimeZone: timeZoneSchema.nullable().optional(),
  maxUnavailable: z.number().int().min(1).max(10_000).nullable().optional(),
  /** the change gate for this group leaves snoozed unready clusters out unless a request says otherwise */
  gateTolerateSnoozed: z.boolean().optional(),
};

export const createGroupSchema = z
  .object({
    name: groupNameSchema,
    description: z.string().trim().max(500).optional(),
    selector: selectorTextSchema,
    ...upgradePolicy,
  })
  .strict();
export const updateGroupSchema = z
  .object({
    name: groupNameSchema.optional(),
    description: z.string().trim().max(500).nullable().optional(),
    selector: selectorTextSchema.optional(),
    ...upgradePolicy,
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "name at least one field" });
